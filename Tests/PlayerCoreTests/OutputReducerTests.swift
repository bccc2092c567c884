import PlayerCore
import Testing

/// The outputs in the state (`src/command/OutputCommands.cxx`, `moveoutput`): what each command changes, the
/// effects that make the audio side follow, and the events MPD sends (`changes(since:)` plus announcements).
@Suite struct OutputReducerTests {
    var state = PlayerState(maximumQueueLength: 16, volume: 100)
    let p = PlayerState.defaultPartition

    init() throws {
        _ = try state.reduce(.addOutput(Output(name: "speakers", plugin: "alsa", enabled: true, softwareMixer: true)),
                         in: p)
        _ = try state.reduce(.addOutput(Output(name: "stream", plugin: "httpd", enabled: false,
                                           attributes: [Output.Attribute("dop", "0")])), in: p)
    }

    func outputs(_ partition: String) -> [OutputSlot] { state[partition: partition]?.outputs ?? [] }

    @Test mutating func enablingSetsTheStateAndTellsTheEngine() throws {
        let before = state
        #expect(try state.reduce(.setOutputEnabled(id: 1, true), in: p)
            == [.enableOutput(partition: p, name: "stream", true)])
        #expect(outputs(p)[1].output?.enabled == true)
        #expect(state.changes(since: before) == [Change(.outputs)])
        // What is set already changes nothing and announces nothing.
        let again = state
        #expect(try state.reduce(.setOutputEnabled(id: 1, true), in: p) == [])
        #expect(state.changes(since: again).isEmpty)
    }

    /// An output with a mixer is a `mixer` event too; a toggle only when it turns the output off.
    @Test mutating func aMixerOutputAnnouncesTheMixer() throws {
        #expect(try state.reduce(.setOutputEnabled(id: 0, nil), in: p)
            == [.enableOutput(partition: p, name: "speakers", false), .announce(Change(.mixer, partition: p))])
        #expect(try state.reduce(.setOutputEnabled(id: 0, nil), in: p)
            == [.enableOutput(partition: p, name: "speakers", true)])
        #expect(try state.reduce(.setOutputEnabled(id: 0, false), in: p)
            == [.enableOutput(partition: p, name: "speakers", false), .announce(Change(.mixer, partition: p))])
    }

    @Test mutating func unknownOutputsAndAttributesAreRefused() throws {
        #expect(throws: PlayerError.noSuchOutput("No such audio output")) {
            try state.reduce(.setOutputEnabled(id: 2, true), in: p)
        }
        #expect(throws: PlayerError.unsupportedAttribute) {
            try state.reduce(.setOutputAttribute(id: 0, name: "dop", value: "1"), in: p)
        }
        #expect(try state.reduce(.setOutputAttribute(id: 1, name: "dop", value: "1"), in: p)
            == [.announce(Change(.outputs))])
        #expect(outputs(p)[1].output?.attributes == [Output.Attribute("dop", "1")])
        #expect(throws: PlayerError.badAttributeValue("Bad 'dop' value")) {
            try state.reduce(.setOutputAttribute(id: 1, name: "dop", value: "yes"), in: p)
        }
        #expect(outputs(p)[1].output?.attributes == [Output.Attribute("dop", "1")])
        #expect(throws: PlayerError.noSuchOutput("No such output")) {
            try state.reduce(.moveOutput(name: "nothing"), in: p)
        }
    }

    /// `moveoutput` leaves a dummy, comes back into it, and the volume follows the software mixer.
    @Test mutating func movingLeavesADummyAndTakesTheMixer() throws {
        _ = try state.reduce(.newPartition("kitchen"), in: p)
        #expect(state[partition: "kitchen"]?.volume == nil)
        #expect(try state.reduce(.moveOutput(name: "speakers"), in: "kitchen")
            == [.moveOutput(name: "speakers", from: p, to: "kitchen")])
        #expect(outputs(p) == [.dummy(name: "speakers"), outputs(p)[1]])
        #expect(outputs("kitchen").map(\.name) == ["speakers"])
        #expect(state[partition: "kitchen"]?.volume == 100)
        #expect(state[partition: p]?.volume == nil)
        // Already there: nothing happens.
        #expect(try state.reduce(.moveOutput(name: "speakers"), in: "kitchen") == [])
        // Back into its old slot, `outputid` 0 again.
        #expect(try state.reduce(.moveOutput(name: "speakers"), in: p)
            == [.moveOutput(name: "speakers", from: "kitchen", to: p)])
        #expect(outputs(p).map(\.output?.name) == ["speakers", "stream"])
        #expect(outputs("kitchen") == [.dummy(name: "speakers")])
        #expect(state[partition: p]?.volume == 100)
    }

    @Test mutating func aFailedOutputIsDisabledWhereverItIs() throws {
        let before = state
        #expect(try state.reduce(.outputFailed(name: "speakers"), in: p) == [])
        #expect(outputs(p)[0].output?.enabled == false)
        #expect(state.changes(since: before) == [Change(.outputs)])
    }
}
