import MPDProtocol
import Testing
@testable import MPDServer

/// "Playback options": `consume`, `crossfade`, `mixrampdb`, `mixrampdelay`, `random`, `repeat`, `setvol`, `getvol`,
/// `single`, `replay_gain_mode`, `replay_gain_status`, `volume`, in memory. Expected texts are MPD 0.24's
/// (`src/command/PlayerCommands.cxx`, `OtherCommands.cxx`, `src/ConsumeMode.cxx`, `SingleMode.cxx`,
/// `ReplayGainMode.cxx`; the differential scripts `options`, `absurd_numbers` and `protocol_0_24`).
@Suite struct PlaybackOptionsCommandsTests {
    @Test func optionsShowInStatus() async {
        let c = await TestSession(server: TestSession.server())
        for line in ["random 1", "repeat 1", "single 1", "consume 1", "crossfade 5", "mixrampdb -17.5",
                     "mixrampdelay 2"] {
            #expect(await c.send(line) == "OK\n")
        }
        #expect(await c.send("status") == """
            volume: 100
            repeat: 1
            random: 1
            single: 1
            consume: 1
            partition: default
            playlist: 1
            playlistlength: 0
            mixrampdb: -17.5
            state: stop
            lastloadedplaylist: 
            xfade: 5
            mixrampdelay: 2
            OK

            """)
        // `oneshot` for single and (since 0.24) consume; a NaN or negative delay and a zero crossfade turn them off.
        for line in ["single oneshot", "consume oneshot", "mixrampdelay nan", "crossfade 0"] {
            #expect(await c.send(line) == "OK\n")
        }
        let status = await c.send("status")
        #expect(status.contains("single: oneshot\nconsume: oneshot\n"))
        #expect(!status.contains("xfade:") && !status.contains("mixrampdelay:"))
    }

    @Test func volume() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("getvol") == "volume: 100\nOK\n")
        #expect(await c.send("setvol 30") == "OK\n")
        #expect(await c.send("getvol") == "volume: 30\nOK\n")
        // `volume` changes it relatively, within 0…100.
        #expect(await c.send("volume 10") == "OK\n")
        #expect(await c.send("getvol") == "volume: 40\nOK\n")
        #expect(await c.send("volume -100") == "OK\n")
        #expect(await c.send("getvol") == "volume: 0\nOK\n")
        #expect(await c.send("volume 101") == "ACK [2@0] {volume} Number too large: 101\n")
        #expect(await c.send("volume x") == "ACK [2@0] {volume} Integer expected: x\n")
        #expect(await c.send("setvol 101") == "ACK [2@0] {setvol} Number too large: 101\n")
        #expect(await c.send("setvol -1") == "ACK [2@0] {setvol} Number too large: -1\n")
        #expect(await c.send("getvol 1") == "ACK [2@0] {getvol} wrong number of arguments for \"getvol\"\n")
    }

    /// Without a mixer `getvol` says nothing, `setvol` fails as `MixerMemento::SetVolume` throws and `volume` with
    /// its own `ACK_ERROR_SYSTEM`.
    @Test func withoutAMixer() async {
        let c = await TestSession(server: TestSession.server(volume: nil))
        #expect(await c.send("getvol") == "OK\n")
        #expect(await c.send("setvol 50") == "ACK [5@0] {setvol} No mixer\n")
        #expect(await c.send("volume 5") == "ACK [52@0] {volume} No mixer\n")
    }

    @Test func replayGain() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("replay_gain_status") == "replay_gain_mode: off\nOK\n")
        for mode in ["track", "album", "auto"] {
            #expect(await c.send("replay_gain_mode \(mode)") == "OK\n")
            #expect(await c.send("replay_gain_status") == "replay_gain_mode: \(mode)\nOK\n")
        }
        #expect(await c.send("replay_gain_mode foo") ==
                "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode\n")
        #expect(await c.send("replay_gain_status 1") ==
                "ACK [2@0] {replay_gain_status} wrong number of arguments for \"replay_gain_status\"\n")
    }

    @Test func argumentErrorsAsMPD() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("random 2") == "ACK [2@0] {random} Boolean (0/1) expected: 2\n")
        #expect(await c.send("random x") == "ACK [2@0] {random} Boolean (0/1) expected: x\n")
        #expect(await c.send("repeat 2") == "ACK [2@0] {repeat} Boolean (0/1) expected: 2\n")
        #expect(await c.send("single 2") == "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot\n")
        #expect(await c.send("consume 2") ==
                "ACK [2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot\n")
        #expect(await c.send("crossfade x") == "ACK [2@0] {crossfade} Integer expected: x\n")
        #expect(await c.send("crossfade -1") == "ACK [2@0] {crossfade} Number too large: -1\n")
        #expect(await c.send("mixrampdb x") == "ACK [2@0] {mixrampdb} Float expected: x\n")
        #expect(await c.send("mixrampdelay x") == "ACK [2@0] {mixrampdelay} Float expected: x\n")
        #expect(await c.send("random") == "ACK [2@0] {random} wrong number of arguments for \"random\"\n")
    }

    /// The options announce `options`, the volume `mixer`, to the clients of the partition.
    @Test func changesWakeIdle() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await b.send("idle options mixer") == "")
        #expect(await a.send("random 1") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: options\nOK\n")
        #expect(await b.send("idle options mixer") == "")
        #expect(await a.send("setvol 20") == "OK\n")
        #expect(b.deliverBroadcast() == "changed: mixer\nOK\n")
    }

    /// Reading needs `read`; changing needs `player`.
    @Test func permissions() async {
        let c = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read] })
        #expect(await c.send("getvol") == "volume: 100\nOK\n")
        #expect(await c.send("replay_gain_status") == "replay_gain_mode: off\nOK\n")
        for line in ["consume 1", "crossfade 1", "mixrampdb 1", "mixrampdelay 1", "random 1", "repeat 1", "setvol 1",
                     "single 1", "replay_gain_mode off", "volume 1"] {
            let name = line.prefix { $0 != " " }
            #expect(await c.send(line) == "ACK [4@0] {\(name)} you don't have permission for \"\(name)\"\n")
        }
    }
}
