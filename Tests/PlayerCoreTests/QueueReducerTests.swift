@testable import PlayerCore
import Testing

/// The queue through the reducer: MPD's version bumps, ids, current-song bookkeeping and random order.
@Suite struct QueueReducerTests {
    var state = PlayerState(maximumQueueLength: 8, volume: 100)
    let p = PlayerState.defaultPartition

    var partition: PartitionState { state[partition: p]! }
    var queue: Queue { partition.queue }
    var uris: [String] { queue.items.map(\.song.uri) }

    static func songs(_ names: String...) -> [Song] { names.map { Song(uri: $0) } }

    @discardableResult
    mutating func send(_ action: Action) throws -> [Effect] { try state.reduce(action, in: p) }

    @Test mutating func bulkAddBumpsOnceAndReturnsIDs() throws {
        let effects = try send(.add(Self.songs("a", "b", "c")))
        #expect(effects == [.added(ids: [1, 2, 3]), .persistState])
        #expect(queue.version == 2)
        #expect(queue.items.map(\.version) == [1, 1, 1])
    }

    /// MPD 0.24's `lastloadedplaylist`: named by a `load` that queued all its songs, kept by other edits, forgotten
    /// by `clear` (`Queue::Clear`), kept across a restart by the state file.
    @Test mutating func loadNamesTheLastLoadedPlaylist() throws {
        try send(.load(Self.songs("a", "b"), name: "mix"))
        #expect(partition.lastLoadedPlaylist == "mix")
        try send(.add(Self.songs("c")))
        try send(.delete(start: 0, end: 3))
        #expect(partition.lastLoadedPlaylist == "mix")
        // A load that does not fit (the queue holds 8) names nothing.
        let effects = try send(.load(Self.songs("1", "2", "3", "4", "5", "6", "7", "8", "9"), name: "big"))
        #expect(effects.contains { if case .added(let ids) = $0 { ids.count < 9 } else { false } })
        #expect(partition.lastLoadedPlaylist == "mix")
        try send(.clear)
        #expect(partition.lastLoadedPlaylist == nil)
        try send(.restore(SavedState(lastLoadedPlaylist: "old")))
        #expect(partition.lastLoadedPlaylist == "old")
    }

    @Test mutating func editsAreQueueChanges() throws {
        let old = state
        try send(.add(Self.songs("a")))
        #expect(state.changes(since: old) == [Change(.queue, partition: p)])
    }

    @Test mutating func nonBulkAddBumpsPerSong() throws {
        try send(.add(Self.songs("a", "b"), bulk: false))
        #expect(queue.version == 3)
        #expect(queue.items.map(\.version) == [1, 2])
    }

    @Test mutating func addAtPositionMovesAndBumpsTwice() throws {
        try send(.add(Self.songs("a", "b")))
        try send(.add(Self.songs("x", "y"), at: 1))
        #expect(uris == ["a", "x", "y", "b"])
        #expect(queue.version == 4)
        #expect(queue.items.map(\.id) == [1, 3, 4, 2])
        #expect(queue.items.map(\.version) == [1, 3, 3, 3])
    }

    @Test mutating func addAtTheEndDoesNotMove() throws {
        try send(.add(Self.songs("a")))
        try send(.add(Self.songs("b"), at: 1))
        #expect(queue.version == 3)
    }

    @Test mutating func fullQueueKeepsWhatFits() throws {
        try send(.add(Self.songs("a", "b", "c", "d", "e", "f")))
        #expect(try send(.add(Self.songs("g", "h", "i"), at: 0)) == [.added(ids: [7, 8]), .persistState])
        #expect(uris.last == "h")
        #expect(queue.version == 3)
        #expect(throws: PlayerError.playlistTooLarge) { try send(.add(Self.songs("j"))) }
        #expect(queue.version == 3)
    }

    @Test func idsWrapAtFourTimesTheLengthAndSkipUsedOnes() throws {
        var state = PlayerState(maximumQueueLength: 2)
        _ = try state.reduce(.add(Self.songs("b")), in: p)
        var seen: [Int] = []
        for _ in 0..<8 {
            let effects = try state.reduce(.add(Self.songs("x")), in: p)
            guard case .added(let ids) = effects.first else { return }
            seen += ids
            _ = try state.reduce(.deleteID(ids[0]), in: p)
        }
        // Id 1 stays in use by "b", so the wrap skips it.
        #expect(seen == [2, 3, 4, 5, 6, 7, 8, 2])
    }

    /// The ids in use past the first word of bits and back: a queue that once held a high id equals one that never
    /// did once the id is gone.
    @Test func idBitsAcrossWords() {
        var a = IDBits(), b = IDBits()
        for id in [1, 63, 64, 65_535] { a.insert(id) }
        #expect(a.contains(63) && a.contains(64) && a.contains(65_535) && !a.contains(62) && !a.contains(70_000))
        a.remove(65_535)
        a.remove(64)
        b.insert(63)
        b.insert(1)
        #expect(a == b)
        b.insert(64)
        #expect(a != b)
    }

    @Test mutating func deleteRangeClipsAndChecksTheStart() throws {
        try send(.add(Self.songs("a", "b", "c", "d")))
        #expect(throws: PlayerError.badSongIndex) { try send(.delete(start: 5, end: 6)) }
        try send(.delete(start: 2, end: 20))
        #expect(uris == ["a", "b"])
        let version = queue.version
        try send(.delete(start: 2, end: nil))
        #expect(queue.version == version)
        #expect(throws: PlayerError.noSuchSong) { try send(.deleteID(99)) }
    }

    @Test mutating func deletingTheStoppedCurrentSongForgetsIt() throws {
        try send(.add(Self.songs("a", "b", "c")))
        state = try Self.withCurrent(state, order: 1)
        try send(.deleteID(1))
        #expect(partition.currentPosition == 0)
        try send(.deleteID(2))
        #expect(partition.currentPosition == nil)
    }

    @Test mutating func moveKeepsTheCurrentSong() throws {
        try send(.add(Self.songs("a", "b", "c", "d", "e")))
        state = try Self.withCurrent(state, order: 1)
        try send(.move(start: 0, end: 2, to: 3))
        #expect(uris == ["c", "d", "e", "a", "b"])
        #expect(partition.currentPosition == 4)
        try send(.move(start: 2, end: 3, to: 0))
        #expect(uris == ["e", "c", "d", "a", "b"])
        #expect(partition.currentPosition == 4)
        #expect(throws: PlayerError.badSongIndex) { try send(.move(start: 3, end: 5, to: 4)) }
    }

    @Test mutating func moveToItselfIsNoEdit() throws {
        try send(.add(Self.songs("a", "b")))
        try send(.move(start: 1, end: 2, to: 1))
        #expect(queue.version == 2)
    }

    @Test mutating func swapFollowsTheCurrentSong() throws {
        try send(.add(Self.songs("a", "b", "c")))
        state = try Self.withCurrent(state, order: 0)
        try send(.swap(0, 2))
        #expect(uris == ["c", "b", "a"])
        #expect(partition.currentPosition == 2)
        #expect(throws: PlayerError.badSongIndex) { try send(.swap(0, 3)) }
        try send(.swapIDs(1, 2))
        #expect(uris == ["c", "a", "b"])
    }

    @Test mutating func priorityBumpsEvenWhenUnchanged() throws {
        try send(.add(Self.songs("a", "b")))
        try send(.setPriority(5, start: 0, end: nil))
        #expect(queue.items.map(\.priority) == [5, 5])
        try send(.setPriority(5, start: 0, end: 1))
        #expect(queue.version == 4)
        #expect(throws: PlayerError.badSongIndex) { try send(.setPriority(1, start: 3, end: 4)) }
    }

    @Test mutating func rangeChecksTheDuration() throws {
        try send(.add([Song(uri: "a", duration: 10)]))
        #expect(throws: PlayerError.badRange("Invalid start offset")) {
            try send(.setSongRange(id: 1, start: 11, end: nil))
        }
        try send(.setSongRange(id: 1, start: 1, end: 20))
        #expect(queue.items[0].range == Queue.ClosedRangeSeconds(start: 1, end: nil))
        try send(.setSongRange(id: 1, start: 0, end: nil))
        #expect(queue.items[0].range == nil)
    }

    @Test mutating func tagsOnlyOnRemoteSongs() throws {
        try send(.add([Song(uri: "a.mp3"), Song(uri: "http://x/s")]))
        #expect(throws: PlayerError.denied("Cannot edit tags of local file")) {
            try send(.addTag(id: 1, name: "Artist", value: "x"))
        }
        try send(.addTag(id: 2, name: "Artist", value: "x"))
        try send(.addTag(id: 2, name: "Title", value: "t"))
        #expect(queue.items[1].song.tags == [Song.Tag("Artist", "x"), Song.Tag("Title", "t")])
        try send(.clearTags(id: 2, name: "Artist"))
        #expect(queue.items[1].song.tags == [Song.Tag("Title", "t")])
        try send(.clearTags(id: 2, name: nil))
        #expect(queue.items[1].song.tags.isEmpty)
    }

    @Test mutating func clearForgetsEverything() throws {
        try send(.add(Self.songs("a", "b")))
        state = try Self.withCurrent(state, order: 1)
        try send(.clear)
        #expect(queue.isEmpty && partition.currentPosition == nil && queue.version == 3)
        // Ids keep counting after a clear.
        #expect(try send(.add(Self.songs("c"))) == [.added(ids: [3]), .persistState])
    }

    @Test mutating func shuffleIsAPermutation() throws {
        try send(.add(Self.songs("a", "b", "c", "d", "e", "f")))
        try send(.shuffle(start: 1, end: 4))
        #expect(uris[0] == "a" && Array(uris[4...]) == ["e", "f"])
        #expect(Set(uris[1..<4]) == ["b", "c", "d"])
        #expect(queue.version == 3)
    }

    @Test mutating func randomOrderIsAPermutationAndOffRestoresIt() throws {
        try send(.setRandom(true))
        try send(.add(Self.songs("a", "b", "c", "d", "e", "f")))
        #expect(queue.order.sorted() == Array(0..<6))
        try send(.setRandom(false))
        #expect(queue.order == Array(0..<6))
        try send(.setRandom(true))
        #expect(queue.order.sorted() == Array(0..<6))
        try send(.deleteID(1))
        #expect(queue.order.sorted() == Array(0..<5))
        try send(.move(start: 0, end: 2, to: 3))
        #expect(queue.order.sorted() == Array(0..<5))
    }

    @Test mutating func randomPriorityPlaysFirst() throws {
        try send(.setRandom(true))
        try send(.add(Self.songs("a", "b", "c", "d", "e", "f")))
        try send(.setPriority(10, start: 4, end: 5))
        #expect(queue.order[0] == 4)
        try send(.setPriority(20, start: 2, end: 3))
        #expect(Array(queue.order.prefix(2)) == [2, 4])
    }

    @Test mutating func nextSongFollowsRepeatAndSingle() throws {
        try send(.add(Self.songs("a", "b")))
        state = try Self.withCurrent(state, order: 1)
        #expect(partition.nextPosition == nil)
        try send(.setRepeat(true))
        #expect(partition.nextPosition == 0)
        try send(.setSingle(.on))
        #expect(partition.nextPosition == 1)
    }

    @Test mutating func restoreKeepsPrioritiesAndTheCurrentSong() throws {
        var options = PlaybackOptions()
        options.repeat = true
        let saved = SavedState(volume: 42, options: options,
                               queue: SavedQueue(entries: [SavedQueue.Entry(song: Song(uri: "a")),
                                                           SavedQueue.Entry(song: Song(uri: "b"), priority: 3)],
                                                 currentPosition: 1))
        try send(.restore(saved))
        #expect(uris == ["a", "b"])
        #expect(queue.items[1].priority == 3)
        #expect(partition.currentPosition == 1)
        #expect(partition.volume == 42)
        #expect(partition.options.repeat)
    }

    /// A fresh state with the same songs where `order` is current, as the player will make it once playback
    /// exists (restoring a state file does it today). Ids start at 1 again.
    static func withCurrent(_ state: PlayerState, order: Int) throws -> PlayerState {
        let p = state[partition: PlayerState.defaultPartition]!
        var fresh = PlayerState(maximumQueueLength: p.queue.maximumLength, volume: p.volume)
        let saved = SavedState(volume: p.volume, options: p.options,
                               queue: SavedQueue(entries: p.queue.items.map {
                                   SavedQueue.Entry(song: $0.song, priority: $0.priority, range: $0.range)
                               }, currentPosition: order))
        _ = try fresh.reduce(.restore(saved), in: PlayerState.defaultPartition)
        return fresh
    }
}
