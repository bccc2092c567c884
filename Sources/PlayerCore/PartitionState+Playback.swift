/// The playback rules at the playlist level (`src/queue/PlaylistControl.cxx`, `Playlist.cxx`): which song plays,
/// what follows it, and what happens when the engine reports a song border, the end, or an error.
///
/// The reducer never drives the engine directly. Commands change the partition's state; `syncEngine` then compares
/// what the engine should be doing with what it was last told (`EngineLink`) and emits only the difference as
/// effects (start, queue the next song, pause, stop). So every path that changes the current song — `next`, a
/// deleted current song, `clear`, a restore — reaches the engine the same way.
extension PartitionState {
    /// The item at `order`, as the engine needs it.
    func playbackItem(order: Int) -> PlaybackItem {
        let item = queue.items[queue.order[order]]
        return PlaybackItem(id: item.id, song: item.song, range: item.range)
    }

    /// `playlist::MoveOrderToCurrent`: in random mode a chosen song is moved in the order so that the songs not
    /// yet played still follow it.
    mutating func moveOrderToCurrent(_ order: Int) -> Int {
        guard queue.random else { return order }
        if isPlaying, let current = player.currentOrder { return queue.moveOrderAfter(order, current) }
        if let current = player.currentOrder { return queue.moveOrderBefore(order, current) }
        return queue.moveOrderBefore(order, 0)
    }

    /// `playlist::PlayOrder`: start `order` from its beginning (or `seek`), unpaused. Starting a song clears the
    /// player's error (`PlayerControl::Play` → `SeekLocked` → `ClearError`): so `play`, `next`, `previous`, a
    /// deleted current song and the skip past a song that failed all drop a stale `error:`; `stop` and `clear` keep it.
    mutating func playOrder(_ order: Int, seek: Double? = nil) {
        player.error = nil
        player.state = .play
        player.currentOrder = order
        engine.pendingStart = .init(seek: seek)
        resetPriorityOfCurrent()
    }

    /// `playlist::SongStarted`: a song's priority is reset when it starts playing.
    mutating func resetPriorityOfCurrent() {
        guard let position = currentPosition, queue.items[position].priority != 0 else { return }
        queue.items[position].priority = 0
        queue.touch(position)
        queue.modified()
    }

    /// `play [POS]` (`playlist::PlayPosition`): no position plays the current song, or resumes a paused one.
    mutating func play(position: Int?) throws(PlayerError) {
        player.error = nil
        var order: Int
        if let position {
            guard position >= 0, position < queue.count else { throw .badSongIndex }
            order = queue.random ? queue.order(ofPosition: position) : position
        } else {
            guard !queue.isEmpty else { return }
            if isPlaying {
                player.state = .play
                return
            }
            order = player.currentOrder ?? 0
        }
        if queue.random { order = moveOrderToCurrent(order) }
        engine.stopOnError = false
        engine.errorCount = 0
        playOrder(order)
    }

    mutating func play(id: Int?) throws(PlayerError) {
        guard let id else { return try play(position: nil) }
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try play(position: position)
    }

    /// `playlist::Stop`: in random mode the order is shuffled again, keeping the current song.
    mutating func stop() {
        guard isPlaying else { return }
        player.state = .stop
        if queue.random, let current = player.currentOrder {
            let position = queue.order[current]
            queue.shuffleOrder()
            player.currentOrder = queue.order(ofPosition: position)
        }
    }

    /// `pause [0|1]`: nothing happens while stopped (`PlayerControl::LockSetPause`).
    mutating func pause(_ on: Bool?) {
        guard isPlaying else { return }
        let paused = on ?? (player.state == .play)
        player.state = paused ? .pause : .play
    }

    /// `next` (`playlist::PlayNext`): past the end playback stops and the current song is forgotten; consume
    /// removes the song that was playing.
    mutating func playNext() throws(PlayerError) {
        guard isPlaying, let old = player.currentOrder else { throw .notPlaying }
        engine.stopOnError = false
        // `handle_next`: single mode does not hold a user who asks for the next song (MPD clears it around
        // `PlayNext` and puts it back).
        let single = options.single
        options.single = .off
        let following = nextOrder(after: old)
        options.single = single
        if let next = following {
            var next = next
            if next == 0 && queue.random {
                // The queue wrapped around in repeat mode: a new random order for the next round.
                queue.shuffleOrder()
                next = 0
            }
            playOrder(next)
        } else {
            stop()
            player.currentOrder = nil
        }
        if options.consume != .off { consume(order: old) }
    }

    /// `previous` (`playlist::PlayPrevious`).
    mutating func playPrevious() throws(PlayerError) {
        guard isPlaying, let current = player.currentOrder else { throw .notPlaying }
        let order = current > 0 ? current - 1 : (options.repeat ? queue.count - 1 : current)
        playOrder(order)
    }

    /// `seek POS TIME` / `seekid` (`playlist::SeekSongOrder`): a seek starts playback when stopped, keeps a
    /// paused player paused, and makes a later decoder error stop playback instead of skipping.
    mutating func seek(position: Int, to seconds: Double) throws(PlayerError) {
        guard position >= 0, position < queue.count else { throw .badSongIndex }
        var order = queue.random ? queue.order(ofPosition: position) : position
        player.error = nil
        engine.stopOnError = true
        engine.errorCount = 0
        if !isPlaying || player.currentOrder != order {
            order = moveOrderToCurrent(order)
            if !isPlaying { player.state = .play }
            player.currentOrder = order
        }
        engine.pendingStart = .init(seek: max(0, seconds))
    }

    mutating func seek(id: Int, to seconds: Double) throws(PlayerError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try seek(position: position, to: seconds)
    }

    /// `seekcur`: `elapsed` is the engine's position, for relative seeks.
    mutating func seekCurrent(to seconds: Double, relative: Bool, elapsed: Double?) throws(PlayerError) {
        guard isPlaying, let position = currentPosition else { throw .notPlaying }
        var target = seconds
        if relative {
            guard let elapsed else { throw .notPlaying }
            target += elapsed
        }
        try seek(position: position, to: max(0, target))
    }

    /// Removes the song at `order` after it has been played (consume mode); `oneshot` consumes once.
    mutating func consume(order: Int) {
        guard order < queue.count else { return }
        let position = queue.order[order]
        delete(songAtPosition: position)
        if options.consume == .oneshot { options.consume = .off }
    }

    // MARK: Engine reports

    /// The engine crossed into the queued song (`playlist::QueuedSongStarted`).
    mutating func engineStartedSong(token: Int, id: Int) {
        // Usually the queued song; but the queue may have changed after the engine had already crossed into the
        // song queued before, and then that song is what plays — the state follows the engine.
        guard token == engine.token, isPlaying, id != engine.playingID else { return }
        guard let position = queue.position(ofID: id) else {
            stop()
            return
        }
        let old = player.currentOrder
        player.currentOrder = queue.order(ofPosition: position)
        engine.playingID = id
        engine.queuedID = nil
        if engine.queuedBorderPause {
            // Single mode (`BorderPause`): the next song is loaded but paused; oneshot switches itself off.
            player.state = .pause
            engine.paused = true
            if options.single == .oneshot { options.single = .off }
        }
        if options.consume != .off, let old, old != player.currentOrder { consume(order: old) }
        resetPriorityOfCurrent()
    }

    /// The engine stopped: the end of its last song, or an error (`playlist::ResumePlayback`). After an error the
    /// next song plays, unless the error followed a seek or every song in the queue failed.
    mutating func engineStopped(token: Int, error: String?) {
        guard token == engine.token, isPlaying else { return }
        engine.playingID = nil
        engine.queuedID = nil
        if let error {
            player.error = error
            engine.errorCount += 1
        } else {
            engine.errorCount = 0
        }
        if (engine.stopOnError && error != nil) || engine.errorCount >= queue.count {
            stop()
        } else {
            try? playNext()
        }
    }

    // MARK: Engine sync

    /// Emits what the engine must do to match the state: start the current song (after a command asked for it,
    /// or because the current song changed under it), stop, pause or resume, and which song follows.
    mutating func syncEngine(_ partition: String) -> [Effect] {
        var effects: [Effect] = []
        let current = isPlaying ? player.currentOrder.flatMap { $0 < queue.count ? $0 : nil } : nil
        let pending = engine.pendingStart
        engine.pendingStart = nil
        if let current {
            let item = playbackItem(order: current)
            if pending != nil || item.id != engine.playingID {
                engine.token += 1
                engine.playingID = item.id
                engine.queuedID = nil
                engine.queuedBorderPause = false
                engine.paused = player.state == .pause
                effects.append(.startPlayback(partition: partition, PlaybackStart(
                    token: engine.token, item: item, seek: pending?.seek, paused: engine.paused)))
            } else if engine.paused != (player.state == .pause) {
                engine.paused = player.state == .pause
                effects.append(.pausePlayback(partition: partition, paused: engine.paused))
            }
            let nextOrder = nextOrder(after: current)
            let borderPause = options.single != .off && !options.repeat
            let next = nextOrder.map { playbackItem(order: $0) }
            if next?.id != engine.queuedID || borderPause != engine.queuedBorderPause || next != engine.queuedItem {
                engine.queuedID = next?.id
                engine.queuedItem = next
                engine.queuedBorderPause = borderPause
                effects.append(.queueNext(partition: partition, token: engine.token, next, borderPause: borderPause))
            }
        } else if engine.playingID != nil {
            engine.token += 1
            engine.playingID = nil
            engine.queuedID = nil
            engine.queuedItem = nil
            engine.paused = false
            effects.append(.stopPlayback(partition: partition))
        }
        return effects
    }
}

/// What the reducer last told a partition's engine. Not part of what clients see: `changes(since:)` ignores it.
public struct EngineLink: Equatable, Sendable {
    struct PendingStart: Equatable, Sendable {
        var seek: Double?
    }
    /// Bumped at every start and stop; the engine's reports carry it, and stale ones are ignored.
    public internal(set) var token = 0
    /// The queue id the engine plays, nil when stopped.
    public internal(set) var playingID: Int?
    /// The queue id queued to follow it.
    public internal(set) var queuedID: Int?
    var queuedItem: PlaybackItem?
    var queuedBorderPause = false
    var paused = false
    /// MPD's `error_count` and `stop_on_error`.
    var errorCount = 0
    var stopOnError = false
    var pendingStart: PendingStart?

    public init() {}
}

/// A queue entry as the engine plays it.
public struct PlaybackItem: Equatable, Sendable {
    public var id: Int
    public var song: Song
    public var range: Queue.ClosedRangeSeconds?

    public init(id: Int, song: Song, range: Queue.ClosedRangeSeconds? = nil) {
        self.id = id
        self.song = song
        self.range = range
    }
}

/// Start `item` now, dropping whatever the engine buffers.
public struct PlaybackStart: Equatable, Sendable {
    public var token: Int
    public var item: PlaybackItem
    /// Seconds into the song (a `seek`), nil to start at the beginning (or the range's start).
    public var seek: Double?
    /// Load the song but stay paused (a seek while paused, a restored paused state).
    public var paused: Bool

    public init(token: Int, item: PlaybackItem, seek: Double? = nil, paused: Bool = false) {
        self.token = token
        self.item = item
        self.seek = seek
        self.paused = paused
    }
}
