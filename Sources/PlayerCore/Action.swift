/// What can happen to the player state. Client commands become actions; effect results come back as actions.
public enum Action: Equatable, Sendable {
    case setRepeat(Bool)
    case setRandom(Bool)
    case setSingle(OneshotMode)
    case setConsume(OneshotMode)
    case setCrossfade(seconds: Double)
    case setMixrampDB(Float)
    case setMixrampDelay(Float)
    case setReplayGainMode(ReplayGainMode)
    /// `setvol`: absolute 0…100.
    case setVolume(Int)
    /// `volume`: relative −100…100, clamped.
    case changeVolume(by: Int)
    case clearError

    // The queue. Positions are absolute (the server resolves relative ones against the queue it saw); ranges
    // are half-open with `end == nil` meaning "to the end", and are checked and clipped as MPD does.
    /// `add`, `addid`, `load`, `findadd`: appends, then moves the new songs to `position` when it lies inside
    /// the old queue. A bulk edit bumps the queue version once; otherwise once per song (`findadd`). The new
    /// ids come back as `Effect.added`; fewer ids than songs means the queue filled up (MPD keeps the songs that
    /// fit, skips the move, and answers `Playlist is too large`). Nothing fits: `PlayerError.playlistTooLarge`.
    case add(SongList, at: Int? = nil, bulk: Bool = true)
    /// `load`: like a bulk `add`, but the move to `position` happens inside the same edit (one version bump).
    /// `load`: `ranges[i]`, when there, is the range of `songs[i]` (a CUE track: `DetachedSong`'s start and end).
    case load([Song], at: Int? = nil, name: String? = nil, ranges: [Queue.ClosedRangeSeconds?] = [])
    case delete(start: Int, end: Int?)
    case deleteID(Int)
    /// `move`: `start..<end` so that it begins at `to`.
    case move(start: Int, end: Int, to: Int)
    case swap(Int, Int)
    case swapIDs(Int, Int)
    /// `shuffle`: physically permutes a range.
    case shuffle(start: Int, end: Int?)
    case clear
    case setPriority(UInt8, start: Int, end: Int?)
    case setPriorityID(UInt8, id: Int)
    /// `rangeid`: seconds; `start == 0, end == nil` clears the range.
    case setSongRange(id: Int, start: Double, end: Double?)
    /// `addtagid`: appends a tag value to a remote song.
    case addTag(id: Int, name: String, value: String)
    /// `cleartagid`: removes one tag (all values), or every tag when `name` is nil.
    case clearTags(id: Int, name: String?)
    /// Start-up: the queue, options and volume from the state file.
    case restore(SavedState)

    // Playback (`src/queue/PlaylistControl.cxx`).
    /// `play [POS]`: nil plays the current song or resumes.
    case play(position: Int?)
    case playID(Int?)
    /// `pause [0|1]`: nil toggles.
    case pause(Bool?)
    case stop
    case next
    case previous
    case seek(position: Int, seconds: Double)
    case seekID(Int, seconds: Double)
    /// `seekcur`: `elapsed` is the engine's position, needed for a relative seek.
    case seekCurrent(seconds: Double, relative: Bool, elapsed: Double?)

    // Partitions (`src/command/PartitionCommands.cxx`); the partition argument of `send` is ignored.
    /// A new partition with an empty queue, stopped, and no mixer until an output moves in.
    case newPartition(String)
    case deletePartition(String)

    // Outputs (`src/command/OutputCommands.cxx`).
    /// A configured output joins the default partition (at start-up, in configuration order).
    case addOutput(Output)
    /// `enableoutput`/`disableoutput`/`toggleoutput` (nil) by `outputid` in the partition; setting what is already
    /// set changes nothing.
    case setOutputEnabled(id: Int, Bool?)
    /// `moveoutput`: the output named moves into the partition, leaving a dummy; the volume follows the software
    /// mixers (a partition without one shows no volume, and `setvol` fails there).
    case moveOutput(name: String)
    /// `outputset`: an attribute the output declares.
    case setOutputAttribute(id: Int, name: String, value: String)
    /// The audio side gave up on an output (its device failed): it is disabled, wherever it is.
    case outputFailed(name: String)

    /// Changes outside the player state (stickers, stored playlists, the database, outputs): nothing in the state
    /// changes, and the store tells its observers, as for any change, in the order of the actions.
    case announce(Set<Change>)
    /// Playing found no output to open (`PlayerThread::OpenOutput`: "All audio outputs are disabled"): the player
    /// pauses where it is, so that it can resume once an output is there, and `status` shows the error.
    case outputsUnavailable(String)

    // What the engine reports; `token` is the one of the start it belongs to (`EngineLink.token`).
    /// The outputs crossed into the queued song.
    case engineStartedSong(token: Int, id: Int)
    /// New tags inside a stream (ICY title): the song in the queue takes them (`playlist::TagModified`).
    case engineTags(token: Int, id: Int, tags: [Song.Tag])
    /// The engine stopped: the end of the last song, or `error` (MPD's `Failed to decode …`).
    case engineStopped(token: Int, error: String?)
}

/// What the store must do outside the reducer. Plain values so reducer tests are plain assertions.
public enum Effect: Equatable, Sendable {
    /// Apply a volume to the partition's mixer.
    case applyVolume(partition: String, volume: Int)
    /// Announce a change that a state diff cannot see (MPD emits some events even when nothing changed,
    /// e.g. `setvol` to the same volume still emits `mixer`).
    case announce(Change)
    /// The persistent state (queue, options, volume) changed and should be written.
    case persistState
    /// Start a song now (`PlayerControl::Play` / `Seek`), dropping what the engine buffers.
    case startPlayback(partition: String, PlaybackStart)
    /// The song to follow the current one gaplessly, nil for none; with `borderPause` the engine pauses at the
    /// start of it (single mode).
    case queueNext(partition: String, token: Int, PlaybackItem?, borderPause: Bool)
    case pausePlayback(partition: String, paused: Bool)
    case stopPlayback(partition: String)
    /// A partition was made (`newpartition`): the audio side gives it an engine, with no outputs.
    case openPartition(String)
    /// A partition was deleted (`delpartition`): the audio side shuts its engine down.
    case closePartition(String)
    /// The output named plays (or stops playing) in the partition's engine.
    case enableOutput(partition: String, name: String, Bool)
    /// The output named leaves one partition's engine for another's, keeping whether it is enabled.
    case moveOutput(name: String, from: String, to: String)
    /// Not work to do but the result of an add action: the ids of the new songs (`addid` prints them). The store
    /// returns it from `send` and does not run it.
    case added(ids: [Int])
}

/// A change of the state, as observers see it. The server maps these to idle subsystems in one table.
public struct Change: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case queue, player, options, mixer, outputs, partitions, storedPlaylists, database, stickers, update
    }
    public var kind: Kind
    /// The partition it happened in, or nil for server-wide changes.
    public var partition: String?

    public init(_ kind: Kind, partition: String? = nil) {
        self.kind = kind
        self.partition = partition
    }
}

extension Action {
    /// `add` of songs in one array.
    public static func add(_ songs: [Song], at position: Int? = nil, bulk: Bool = true) -> Action {
        .add(SongList(songs), at: position, bulk: bulk)
    }
}
