import Foundation
import MPDProtocol
import Testing
@testable import MPDServer

/// "Audio output devices": `outputs`, `enableoutput`, `disableoutput`, `toggleoutput`, `outputset`, over outputs
/// in memory (`AudioServer`). Expected texts are MPD 0.24's (`src/command/OutputCommands.cxx`,
/// `src/output/Print.cxx`; the differential scripts `outputs` and `playback` run the same against MPD's null output).
@Suite struct OutputCommandsTests {
    static let bothEnabled = """
        outputid: 0
        outputname: null
        plugin: null
        outputenabled: 1
        outputid: 1
        outputname: second
        plugin: alsa
        outputenabled: 1
        attribute: allowed_formats=
        attribute: dop=0
        OK

        """

    @Test func enableDisableToggle() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("outputs") == Self.bothEnabled)
        #expect(await c.send("disableoutput 0") == "OK\n")
        #expect(await c.send("toggleoutput 1") == "OK\n")
        #expect(await c.send("outputs") == """
            outputid: 0
            outputname: null
            plugin: null
            outputenabled: 0
            outputid: 1
            outputname: second
            plugin: alsa
            outputenabled: 0
            attribute: allowed_formats=
            attribute: dop=0
            OK

            """)
        #expect(await c.send("toggleoutput 1") == "OK\n")
        #expect(await c.send("enableoutput 0") == "OK\n")
        #expect(await c.send("enableoutput 0") == "OK\n")
        #expect(await c.send("outputs") == Self.bothEnabled)
    }

    /// A change announces `output`, and `mixer` too when the output has a mixer (a toggle only when it turns the
    /// output off); a switch that changes nothing announces nothing.
    @Test func changesWakeIdle() async {
        let s = AudioServer()
        let a = await s.client()
        let b = await s.client()
        #expect(await b.send("idle output mixer") == "")
        #expect(await a.send("disableoutput 0") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: mixer\nchanged: output\nOK\n")
        #expect(await b.send("idle output mixer") == "")
        #expect(await a.send("disableoutput 0") == "OK\n")
        #expect(b.deliverBroadcast() == "")
        #expect(await a.send("toggleoutput 0") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: output\nOK\n")
        #expect(await b.send("idle output mixer") == "")
        #expect(await a.send("toggleoutput 1") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: output\nOK\n")
    }

    /// Only the attributes an output declares can be set.
    @Test func outputsetChangesADeclaredAttribute() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("outputset 1 dop 1") == "OK\n")
        #expect(await c.send("outputs") == Self.bothEnabled.replacingOccurrences(of: "dop=0", with: "dop=1"))
        #expect(await c.send("outputset 0 dop 1") == "ACK [2@0] {outputset} Unsupported attribute\n")
        // MPD's `IsValidAttributeName`: letters, digits and `_` only, once the output exists.
        #expect(await c.send("outputset 1 a-b 1") == "ACK [2@0] {outputset} Illegal attribute name\n")
        #expect(await c.send("outputset 1 dop 2") == "ACK [2@0] {outputset} Bad 'dop' value\n")
        #expect(await c.send("outputset 9 a-b 1") == "ACK [50@0] {outputset} No such audio output\n")
        #expect(await c.send("outputset 9 a b") == "ACK [50@0] {outputset} No such audio output\n")
        #expect(await c.send("outputset x a b") == "ACK [2@0] {outputset} Integer expected: x\n")
        #expect(await c.send("outputset 0 dop") ==
                "ACK [2@0] {outputset} wrong number of arguments for \"outputset\"\n")
    }

    @Test func errorsAsMPD() async {
        let s = AudioServer()
        let c = await s.client()
        #expect(await c.send("enableoutput 9") == "ACK [50@0] {enableoutput} No such audio output\n")
        #expect(await c.send("disableoutput 9") == "ACK [50@0] {disableoutput} No such audio output\n")
        #expect(await c.send("toggleoutput 9") == "ACK [50@0] {toggleoutput} No such audio output\n")
        #expect(await c.send("enableoutput -1") == "ACK [2@0] {enableoutput} Number too large: -1\n")
        #expect(await c.send("enableoutput x") == "ACK [2@0] {enableoutput} Integer expected: x\n")
        #expect(await c.send("enableoutput") ==
                "ACK [2@0] {enableoutput} wrong number of arguments for \"enableoutput\"\n")
        #expect(await c.send("outputs 1") == "ACK [2@0] {outputs} wrong number of arguments for \"outputs\"\n")
    }

    /// Listing needs `read`; switching and setting need `admin`.
    @Test func permissions() async {
        let s = AudioServer { $0.defaultPermissions = [.read, .add, .control, .player] }
        let c = await s.client()
        #expect(await c.send("outputs") == Self.bothEnabled)
        for line in ["enableoutput 0", "disableoutput 0", "toggleoutput 0", "outputset 1 dop 1"] {
            let name = line.prefix { $0 != " " }
            #expect(await c.send(line) == "ACK [4@0] {\(name)} you don't have permission for \"\(name)\"\n")
        }
    }

    /// Without a player (MPD with no `audio_output` has its default one; NoSignal's tests run without) there is
    /// nothing to list or switch.
    @Test func withoutOutputs() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("outputs") == "OK\n")
        #expect(await c.send("enableoutput 0") == "ACK [50@0] {enableoutput} No such audio output\n")
        #expect(await c.send("outputset 0 dop 1") == "ACK [50@0] {outputset} No such audio output\n")
    }
}
