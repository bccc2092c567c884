import PlayerCore
import Testing

/// Playback through the reducer (`src/queue/PlaylistControl.cxx`): what each command does to the state, and the
/// effects that drive the engine — start, queue next, pause, stop — emitted only when something changed.
@Suite struct PlaybackReducerTests {
    var state = PlayerState(maximumQueueLength: 16, volume: 100)
    let p = PlayerState.defaultPartition

    var partition: PartitionState { state[partition: p]! }
    var current: String? { partition.currentPosition.map { partition.queue.items[$0].song.uri } }
    var ids: [Int] { partition.queue.items.map(\.id) }

    @discardableResult
    mutating func send(_ action: Action) throws -> [Effect] { try state.reduce(action, in: p) }

    mutating func load(_ names: String...) throws {
        try send(.add(names.map { Song(uri: $0) }))
    }

    static func starts(_ effects: [Effect]) -> [PlaybackStart] {
        effects.compactMap { if case .startPlayback(_, let start) = $0 { start } else { nil } }
    }

    static func queued(_ effects: [Effect]) -> [PlaybackItem?] {
        effects.compactMap { if case .queueNext(_, _, let item, _) = $0 { .some(item) } else { nil } }
    }

    @Test mutating func playStartsTheSongAndQueuesTheNext() throws {
        try load("a", "b", "c")
        let effects = try send(.play(position: 1))
        #expect(partition.player.state == .play)
        #expect(current == "b")
        #expect(Self.starts(effects).map(\.item.song.uri) == ["b"])
        #expect(Self.queued(effects).map { $0?.song.uri } == ["c"])
    }

    @Test mutating func playWithoutPositionStartsTheFirstSongOrResumes() throws {
        try load("a", "b")
        try send(.play(position: nil))
        #expect(current == "a")
        try send(.pause(true))
        let effects = try send(.play(position: nil))
        #expect(partition.player.state == .play)
        #expect(Self.starts(effects).isEmpty)
        #expect(effects.contains(.pausePlayback(partition: p, paused: false)))
    }

    @Test mutating func playOnAnEmptyQueueDoesNothing() throws {
        let effects = try send(.play(position: nil))
        #expect(partition.player.state == .stop)
        #expect(Self.starts(effects).isEmpty)
    }

    @Test mutating func badPositionsAndIDsAreErrors() throws {
        try load("a")
        #expect(throws: PlayerError.badSongIndex) { try send(.play(position: 1)) }
        #expect(throws: PlayerError.badSongIndex) { try send(.play(position: -2)) }
        #expect(throws: PlayerError.noSuchSong) { try send(.playID(99)) }
        #expect(throws: PlayerError.notPlaying) { try send(.next) }
        #expect(throws: PlayerError.notPlaying) { try send(.previous) }
        #expect(throws: PlayerError.notPlaying) { try send(.seekCurrent(seconds: 1, relative: false, elapsed: nil)) }
    }

    @Test mutating func pauseIsIgnoredWhileStoppedAndToggles() throws {
        try load("a")
        try send(.pause(true))
        #expect(partition.player.state == .stop)
        try send(.play(position: 0))
        try send(.pause(nil))
        #expect(partition.player.state == .pause)
        try send(.pause(nil))
        #expect(partition.player.state == .play)
    }

    @Test mutating func stopKeepsTheCurrentSongAndStopsTheEngine() throws {
        try load("a", "b")
        try send(.play(position: 1))
        let effects = try send(.stop)
        #expect(partition.player.state == .stop)
        #expect(current == "b")
        #expect(effects.contains(.stopPlayback(partition: p)))
    }

    @Test mutating func nextPastTheEndStopsAndForgetsTheCurrentSong() throws {
        try load("a", "b")
        try send(.play(position: 1))
        try send(.next)
        #expect(partition.player.state == .stop)
        #expect(partition.player.currentOrder == nil)
    }

    @Test mutating func previousOnTheFirstSongRestartsItUnlessRepeat() throws {
        try load("a", "b", "c")
        try send(.play(position: 0))
        let effects = try send(.previous)
        #expect(current == "a")
        #expect(Self.starts(effects).count == 1)
        try send(.setRepeat(true))
        try send(.previous)
        #expect(current == "c")
    }

    @Test mutating func seekStartsAStoppedPlayerAndKeepsAPausedOnePaused() throws {
        try load("a", "b")
        var effects = try send(.seek(position: 1, seconds: 2.5))
        #expect(partition.player.state == .play)
        #expect(Self.starts(effects).map(\.seek) == [2.5])
        try send(.pause(true))
        effects = try send(.seekCurrent(seconds: -1, relative: true, elapsed: 3))
        #expect(partition.player.state == .pause)
        #expect(Self.starts(effects).map(\.seek) == [2.0])
        #expect(Self.starts(effects).map(\.paused) == [true])
        effects = try send(.seekCurrent(seconds: -10, relative: true, elapsed: 3))
        #expect(Self.starts(effects).map(\.seek) == [0])
    }

    @Test mutating func theEngineCrossingIntoTheQueuedSongMovesTheCurrentSong() throws {
        try load("a", "b", "c")
        let start = Self.starts(try send(.play(position: 0)))[0]
        let effects = try send(.engineStartedSong(token: start.token, id: ids[1]))
        #expect(current == "b")
        #expect(Self.starts(effects).isEmpty)
        #expect(Self.queued(effects).map { $0?.song.uri } == ["c"])
    }

    @Test mutating func staleEngineReportsAreIgnored() throws {
        try load("a", "b", "c")
        let first = Self.starts(try send(.play(position: 0)))[0]
        try send(.play(position: 2))
        try send(.engineStartedSong(token: first.token, id: ids[1]))
        try send(.engineStopped(token: first.token, error: nil))
        #expect(current == "c")
        #expect(partition.player.state == .play)
    }

    @Test mutating func consumeRemovesThePlayedSongAtTheBorder() throws {
        try load("a", "b", "c")
        try send(.setConsume(.on))
        let start = Self.starts(try send(.play(position: 0)))[0]
        try send(.engineStartedSong(token: start.token, id: ids[1]))
        #expect(partition.queue.items.map(\.song.uri) == ["b", "c"])
        #expect(current == "b")
    }

    @Test mutating func consumeOneshotSwitchesItselfOff() throws {
        try load("a", "b", "c")
        try send(.setConsume(.oneshot))
        let start = Self.starts(try send(.play(position: 0)))[0]
        try send(.engineStartedSong(token: start.token, id: ids[1]))
        #expect(partition.options.consume == .off)
        #expect(partition.queue.count == 2)
    }

    @Test mutating func singleModePausesAtTheBorderAndOneshotResets() throws {
        try load("a", "b")
        try send(.setSingle(.oneshot))
        let effects = try send(.play(position: 0))
        #expect(effects.contains(.queueNext(partition: p, token: Self.starts(effects)[0].token,
                                            PlaybackItem(id: ids[1], song: Song(uri: "b")), borderPause: true)))
        try send(.engineStartedSong(token: Self.starts(effects)[0].token, id: ids[1]))
        #expect(partition.player.state == .pause)
        #expect(current == "b")
        #expect(partition.options.single == .off)
    }

    @Test mutating func singleWithRepeatQueuesTheSameSongAgain() throws {
        try load("a", "b")
        try send(.setSingle(.on))
        try send(.setRepeat(true))
        let effects = try send(.play(position: 0))
        #expect(Self.queued(effects).map { $0?.song.uri } == ["a"])
    }

    /// `handle_next`: single mode (with repeat, it would replay the song) does not hold a user who asks for the next
    /// song; the mode stays as it was.
    @Test mutating func nextIgnoresSingleMode() throws {
        try load("a", "b")
        try send(.setSingle(.oneshot))
        try send(.setRepeat(true))
        try send(.play(position: 0))
        try send(.next)
        #expect(current == "b")
        #expect(partition.options.single == .oneshot)
    }

    @Test mutating func repeatWrapsToTheFirstSong() throws {
        try load("a", "b")
        try send(.setRepeat(true))
        let effects = try send(.play(position: 1))
        #expect(Self.queued(effects).map { $0?.song.uri } == ["a"])
    }

    @Test mutating func theEndOfTheQueueStopsAndForgetsTheCurrentSong() throws {
        try load("a")
        let start = Self.starts(try send(.play(position: 0)))[0]
        let effects = try send(.engineStopped(token: start.token, error: nil))
        #expect(partition.player.state == .stop)
        #expect(partition.player.currentOrder == nil)
        // The engine stopped by itself: nothing more to tell it.
        #expect(!effects.contains(.stopPlayback(partition: p)))
        #expect(partition.engine.playingID == nil)
    }

    /// MPD's `playlist::ResumePlayback` plays the next song with `PlayOrder`, whose `PlayerControl::Play` clears the
    /// error (`SeekLocked` → `ClearError`): the song after a failed one plays without a stale `error:`.
    @Test mutating func aFailedSongIsSkippedAndTheNextSongClearsTheError() throws {
        try load("a", "broken", "c")
        let start = Self.starts(try send(.play(position: 1)))[0]
        let effects = try send(.engineStopped(token: start.token, error: "Failed to decode broken"))
        #expect(partition.player.error == nil)
        #expect(partition.player.state == .play)
        #expect(current == "c")
        #expect(Self.starts(effects).map(\.item.song.uri) == ["c"])
    }

    /// The error of a stop after failures stays through `stop` and `clear` (MPD's `playlist::Stop` leaves the
    /// player's error alone) and goes with the next song that starts: `play`, `next` and `previous` alike.
    @Test mutating func theErrorStaysThroughStopAndClearAndGoesWithTheNextStart() throws {
        try load("x", "y")
        var token = Self.starts(try send(.play(position: 0)))[0].token
        token = Self.starts(try send(.engineStopped(token: token, error: "Failed to decode x")))[0].token
        try send(.engineStopped(token: token, error: "Failed to decode y"))
        #expect(partition.player.state == .stop)
        #expect(partition.player.error == "Failed to decode y")
        try send(.stop)
        #expect(partition.player.error == "Failed to decode y")
        try send(.clear)
        #expect(partition.player.error == "Failed to decode y")
        try load("a", "b")
        try send(.play(position: 0))
        #expect(partition.player.error == nil)
        // `next` and `previous` start a song too.
        try send(.outputsUnavailable("All outputs failed"))
        #expect(partition.player.error == "All outputs failed")
        try send(.next)
        #expect(partition.player.error == nil)
        try send(.outputsUnavailable("All outputs failed"))
        try send(.previous)
        #expect(partition.player.error == nil)
    }

    @Test mutating func errorsOnEverySongStopPlayback() throws {
        try load("x", "y")
        var token = Self.starts(try send(.play(position: 0)))[0].token
        let effects = try send(.engineStopped(token: token, error: "Failed to decode x"))
        token = Self.starts(effects)[0].token
        try send(.engineStopped(token: token, error: "Failed to decode y"))
        #expect(partition.player.state == .stop)
    }

    @Test mutating func anErrorAfterASeekStopsPlayback() throws {
        try load("a", "b")
        let start = Self.starts(try send(.seek(position: 0, seconds: 1)))[0]
        try send(.engineStopped(token: start.token, error: "Failed to decode a"))
        #expect(partition.player.state == .stop)
    }

    @Test mutating func deletingThePlayingSongPlaysTheNextOne() throws {
        try load("a", "b", "c")
        try send(.play(position: 0))
        let effects = try send(.delete(start: 0, end: 1))
        #expect(current == "b")
        #expect(Self.starts(effects).map(\.item.song.uri) == ["b"])
    }

    @Test mutating func editingTheQueueRequeuesTheNextSong() throws {
        try load("a", "b", "c")
        try send(.play(position: 0))
        let effects = try send(.delete(start: 1, end: 2))
        #expect(Self.starts(effects).isEmpty)
        #expect(Self.queued(effects).map { $0?.song.uri } == ["c"])
    }

    @Test mutating func aStartedSongLosesItsPriority() throws {
        try load("a", "b")
        try send(.setPriority(10, start: 1, end: 2))
        try send(.play(position: 1))
        #expect(partition.queue.items[1].priority == 0)
    }

    @Test mutating func playAndStopAreVisibleAsPlayerChanges() throws {
        try load("a")
        let old = state
        try send(.play(position: 0))
        #expect(state.changes(since: old).contains(Change(.player, partition: p)))
    }

    @Test mutating func streamTitlesReachTheQueuedStreamOnly() throws {
        try send(.add([Song(uri: "http://radio.example/live", tags: [Song.Tag("Name", "Radio")]), Song(uri: "a")]))
        let start = Self.starts(try send(.play(position: 0)))[0]
        let version = partition.queue.version
        try send(.engineTags(token: start.token, id: ids[0], tags: [Song.Tag("Title", "Artist - Song")]))
        #expect(partition.queue.items[0].song.tags == [Song.Tag("Name", "Radio"), Song.Tag("Title", "Artist - Song")])
        #expect(partition.queue.version == version + 1)
        try send(.engineTags(token: start.token, id: ids[0], tags: [Song.Tag("Title", "Next")]))
        #expect(partition.queue.items[0].song.tags == [Song.Tag("Name", "Radio"), Song.Tag("Title", "Next")])
        try send(.engineTags(token: start.token, id: ids[1], tags: [Song.Tag("Title", "x")]))
        #expect(partition.queue.items[1].song.tags.isEmpty)
        try send(.engineTags(token: start.token - 1, id: ids[0], tags: [Song.Tag("Title", "stale")]))
        #expect(partition.queue.items[0].song.tags.last?.value == "Next")
    }

    @Test mutating func partitionsAreCreatedAndDeleted() throws {
        #expect(try state.reduce(.newPartition("kitchen"), in: p) == [.openPartition("kitchen")])
        #expect(state.partitions.map(\.name) == ["default", "kitchen"])
        #expect(state[partition: "kitchen"]?.volume == nil)
        #expect(throws: PlayerError.partitionExists("kitchen")) { try state.reduce(.newPartition("kitchen"), in: p) }
        #expect(try state.reduce(.deletePartition("kitchen"), in: p)
            == [.stopPlayback(partition: "kitchen"), .closePartition("kitchen")])
        #expect(state.partitions.map(\.name) == ["default"])
    }

    /// Changes outside the state go through the reducer too: the state stays as it was.
    @Test mutating func anAnnouncementChangesNothing() throws {
        let before = state
        #expect(try state.reduce(.announce([Change(.stickers)]), in: p) == [.announce(Change(.stickers))])
        #expect(state == before)
    }
}
