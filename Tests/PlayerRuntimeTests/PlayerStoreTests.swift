import Logging
import PlayerCore
import PlayerRuntime
import Synchronization
import Testing

final class RecordingEffects: EffectRunner {
    let seen = Mutex<[Effect]>([])
    func run(_ effect: Effect) async { seen.withLock { $0.append(effect) } }
}

@Suite struct PlayerStoreTests {
    @Test func observersSeeChangeSetsInOrder() throws {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        let seen = Mutex<[Set<Change>]>([])
        store.observe { changes in seen.withLock { $0.append(changes) } }
        try store.send(.setRepeat(true))
        try store.send(.setRepeat(true))  // no change, nothing announced
        try store.send(.setVolume(30))
        #expect(seen.withLock { $0 } == [[Change(.options, partition: "default")], [Change(.mixer, partition: "default")]])
    }

    @Test func effectsRunInOrderOutsideTheReducer() async throws {
        let effects = RecordingEffects()
        let store = PlayerStore(state: PlayerState(volume: 100), effects: effects, logger: Logger(label: "test"))
        try store.send(.setRepeat(true))
        try store.send(.setVolume(30))
        store.finishEffects()
        await store.runEffects()
        #expect(effects.seen.withLock { $0 } == [.persistState, .applyVolume(partition: "default", volume: 30), .persistState])
    }

    @Test func asyncChangesStream() async throws {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        var iterator = store.changes().makeAsyncIterator()
        try store.send(.setRandom(true))
        #expect(await iterator.next() == [Change(.options, partition: "default")])
    }

    /// Announcements reach the observers with nothing else, and are not queued as work.
    @Test func anAnnouncementReachesTheObservers() async throws {
        let effects = RecordingEffects()
        let store = PlayerStore(state: PlayerState(volume: 100), effects: effects, logger: Logger(label: "test"))
        var iterator = store.changes().makeAsyncIterator()
        try store.send(.announce([Change(.stickers), Change(.storedPlaylists)]))
        #expect(await iterator.next() == [Change(.stickers), Change(.storedPlaylists)])
        store.finishEffects()
        await store.runEffects()
        #expect(effects.seen.withLock { $0 }.isEmpty)
    }

    @Test func sendReturnsTheNewIDsWithoutRunningThem() async throws {
        let effects = RecordingEffects()
        let store = PlayerStore(state: PlayerState(volume: 100), effects: effects, logger: Logger(label: "test"))
        let sent = try store.send(.add([Song(uri: "a"), Song(uri: "b")]))
        #expect(sent.effects == [.added(ids: [1, 2]), .persistState])
        #expect(sent.addedIDs == [1, 2])
        store.finishEffects()
        await store.runEffects()
        #expect(effects.seen.withLock { $0 } == [.persistState])
    }

    @Test func theOptionsHandlerGetsEveryPartitionsOptionsAtOnceThenEachChange() throws {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        try store.send(.setCrossfade(seconds: 3))
        let seen = Mutex<[String]>([])
        store.setOptionsHandler { partition, options in
            seen.withLock { $0.append("\(partition) \(options.crossfade) \(options.random) \(options.repeat)") }
        }
        #expect(seen.withLock { $0 } == ["default 3.0 false false"])
        try store.send(.setRandom(true))
        try store.send(.setRandom(true))  // no change, nothing pushed
        try store.send(.setVolume(30))  // not an option
        try store.send(.newPartition("p"))
        try store.send(.setRepeat(true), partition: "p")
        #expect(seen.withLock { $0 } == ["default 3.0 false false", "default 3.0 true false", "p 0.0 false false",
                                         "p 0.0 false true"])
    }

    /// An edit changes the queue in place: the store does not keep the state it had while the action runs, so the
    /// songs' storage is not shared and not copied (a copy per edit made `delete` on a 10,000-song queue 16× MPD's
    /// time). The songs are still those expected, and a failing edit leaves them all.
    @Test func editsChangeTheQueueInPlace() throws {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        try store.send(.add(SongList((0..<1000).map { Song(uri: "s\($0)") })))
        func storage() -> UnsafePointer<Queue.Item>? {
            store.state.partitions[0].queue.items.withUnsafeBufferPointer { $0.baseAddress }
        }
        // One action at a time: a copy is made while the old storage still exists, so it cannot land at its address
        // (after two, the allocator could hand the first address back).
        let before = storage()
        try store.send(.delete(start: 0, end: 1))
        #expect(storage() == before)
        try store.send(.move(start: 0, end: 10, to: 500))
        #expect(storage() == before)
        let queue = store.state.partitions[0].queue
        #expect(queue.count == 999)
        #expect(queue.items[0].song.uri == "s11" && queue.items[500].song.uri == "s1")
        let untouched = store.state
        #expect(throws: PlayerError.self) { try store.send(.move(start: 990, end: 1005, to: 0)) }
        #expect(store.state == untouched)
        #expect(storage() == before)
    }

    /// What a failing action did before it failed stays, as in MPD (no transactions): `play 99` clears the
    /// player's error first (`playlist::PlayPosition` calls `LockClearError` before it checks the position).
    @Test func aFailingPlayStillClearsTheError() throws {
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Logger(label: "test"))
        try store.send(.add([Song(uri: "a")]))
        try store.send(.play(position: 0))
        try store.send(.outputsUnavailable("All audio outputs are disabled"))
        #expect(store.state.partitions[0].player.error != nil)
        #expect(throws: PlayerError.badSongIndex) { try store.send(.play(position: 99)) }
        #expect(store.state.partitions[0].player.error == nil)
    }

    @Test func errorsLeaveStateUntouched() throws {
        let store = PlayerStore(state: PlayerState(volume: nil), logger: Logger(label: "test"))
        let before = store.state
        #expect(throws: PlayerError.failed("No mixer")) { try store.send(.setVolume(3)) }
        #expect(store.state == before)
    }
}
