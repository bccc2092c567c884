import PlayerCore
import Testing

/// `SongList`: songs in order however they are split into parts; what `add` of a folder hands the queue.
@Suite struct SongListTests {
    static func songs(_ names: String...) -> [Song] { names.map { Song(uri: $0) } }

    @Test func partsReadAsOneSequence() {
        var list = SongList(parts: [Self.songs("a", "b"), [], Self.songs("c")])
        list.append([])
        list.append(Self.songs("d", "e", "f"))
        #expect(list.count == 6)
        #expect(list.parts.count == 3)  // empty parts are not kept
        #expect(list.map(\.uri) == ["a", "b", "c", "d", "e", "f"])
        #expect(list.indices.map { list[$0].uri } == ["a", "b", "c", "d", "e", "f"])
        #expect(list.reversed().map(\.uri) == ["f", "e", "d", "c", "b", "a"])
        #expect(list.first?.uri == "a" && list.last?.uri == "f")
    }

    @Test func equalWhenTheSongsAreEqual() {
        let split = SongList(parts: [Self.songs("a"), Self.songs("b", "c")])
        #expect(split == SongList(Self.songs("a", "b", "c")))
        #expect(split != SongList(Self.songs("a", "b")))
        #expect(split != SongList(Self.songs("a", "c", "b")))
        #expect(SongList() == [])
        #expect(SongList().isEmpty && SongList().first == nil)
    }

    /// A queue edit takes the parts in order: `add` of several directories at a position inside the queue.
    @Test func addingPartsKeepsTheirOrder() throws {
        var state = PlayerState()
        _ = try state.reduce(.add(Self.songs("x", "y")), in: PlayerState.defaultPartition)
        let effects = try state.reduce(.add(SongList(parts: [Self.songs("a", "b"), Self.songs("c")]), at: 1),
                                       in: PlayerState.defaultPartition)
        #expect(effects == [.added(ids: [3, 4, 5]), .persistState])
        let queue = try #require(state[partition: PlayerState.defaultPartition]).queue
        #expect(queue.items.map(\.song.uri) == ["x", "a", "b", "c", "y"])
    }
}
