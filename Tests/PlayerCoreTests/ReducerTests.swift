import PlayerCore
import Testing

@Suite struct ReducerTests {
    var state = PlayerState(volume: 100)
    let p = PlayerState.defaultPartition

    @Test mutating func optionsChangeStateAndPersist() throws {
        let old = state
        let effects = try state.reduce(.setRepeat(true), in: p)
        #expect(state[partition: p]?.options.repeat == true)
        #expect(effects == [.persistState])
        #expect(state.changes(since: old) == [Change(.options, partition: p)])
    }

    @Test mutating func settingTheSameOptionIsNoChange() throws {
        let old = state
        _ = try state.reduce(.setRandom(false), in: p)
        #expect(state.changes(since: old).isEmpty)
    }

    @Test mutating func crossfadeAnnouncesEvenWithoutChange() throws {
        let effects = try state.reduce(.setCrossfade(seconds: 0), in: p)
        #expect(effects.contains(.announce(Change(.options, partition: p))))
    }

    @Test mutating func setVolumeAppliesAndAnnounces() throws {
        let effects = try state.reduce(.setVolume(40), in: p)
        #expect(state[partition: p]?.volume == 40)
        #expect(effects == [.applyVolume(partition: p, volume: 40), .announce(Change(.mixer, partition: p)),
                            .persistState])
    }

    @Test(arguments: [(50, 60, 100), (30, -100, 0), (40, 10, 50)])
    mutating func relativeVolumeIsClamped(start: Int, delta: Int, expected: Int) throws {
        _ = try state.reduce(.setVolume(start), in: p)
        _ = try state.reduce(.changeVolume(by: delta), in: p)
        #expect(state[partition: p]?.volume == expected)
    }

    @Test mutating func relativeVolumeWithoutChangeDoesNothing() throws {
        let old = state
        let effects = try state.reduce(.changeVolume(by: 10), in: p)
        #expect(effects.isEmpty)
        #expect(state == old)
    }

    @Test mutating func noMixerIsAnError() throws {
        var noMixer = PlayerState(volume: nil)
        #expect(throws: PlayerError.failed("No mixer")) { try noMixer.reduce(.setVolume(10), in: p) }
        #expect(throws: PlayerError.noMixer) { try noMixer.reduce(.changeVolume(by: 10), in: p) }
    }

    @Test mutating func unknownPartition() throws {
        #expect(throws: PlayerError.noSuchPartition("x")) { try state.reduce(.setRepeat(true), in: "x") }
    }

    @Test func nanMixrampDelayEqualsItself() {
        var a = PlaybackOptions()
        a.mixrampDelay = .nan
        var b = PlaybackOptions()
        b.mixrampDelay = .nan
        #expect(a == b)
    }
}

@Suite struct QueueTests {
    @Test func idsStartAtOneAndAreNotReused() throws {
        var queue = Queue(maximumLength: 3)
        #expect(try queue.append(Song(uri: "a")) == 1)
        #expect(try queue.append(Song(uri: "a")) == 2)
        #expect(try queue.append(Song(uri: "b")) == 3)
        #expect(throws: PlayerError.playlistTooLarge) { try queue.append(Song(uri: "c")) }
        #expect(queue.position(ofID: 2) == 1)
    }

    @Test func versionStartsAtOneAndCountsEdits() throws {
        var queue = Queue()
        #expect(queue.version == 1)
        _ = try queue.append(Song(uri: "a"))
        queue.modified()
        #expect(queue.version == 2)
        #expect(queue.items[0].version == 1)
    }
}
