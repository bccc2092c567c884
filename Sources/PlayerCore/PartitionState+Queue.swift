/// The queue edits at the playlist level (`src/queue/PlaylistEdit.cxx`, `Playlist.cxx`): argument checks, keeping
/// the current song consistent, and one version bump per edit (`playlist::OnModified`).
extension PartitionState {
    /// MPD's `playlist.playing`: a song is loaded in the player (playing or paused).
    var isPlaying: Bool { player.state != .stop }

    /// `Queue::GetNextOrder`.
    func nextOrder(after current: Int) -> Int? {
        let consume = options.consume != .off
        if options.single != .off && options.repeat && !consume { return current }
        if current + 1 < queue.count { return current + 1 }
        if options.repeat && (current > 0 || !consume) { return 0 }
        return nil
    }

    /// `playlist::GetNextPosition`: what `status` shows as `nextsong`, also while stopped. (Inlinable, as
    /// `currentPosition`: `status` reads the state in place, and a call would take a copy of the whole state.)
    @inlinable @inline(__always)
    public var nextPosition: Int? {
        guard let current = player.currentOrder, current < queue.count else { return nil }
        if options.single != .off && options.repeat { return queue.order[current] }
        if current + 1 < queue.count { return queue.order[current + 1] }
        if options.repeat { return queue.order[0] }
        return nil
    }

    /// `RangeArg::CheckClip`: `Bad song index` when the start is past the end; the end is clipped.
    func clip(_ start: Int, _ end: Int?) throws(PlayerError) -> Range<Int> {
        guard start <= queue.count else { throw .badSongIndex }
        let end = min(end ?? queue.count, queue.count)
        return start..<max(start, end)
    }

    // MARK: Edits

    /// `AppendSong` for each song that fits; a bulk edit (`add`, `load`) bumps the version once, otherwise once per song
    /// (`findadd`). Then, when `position` is inside the old queue, the new songs move there (another bump).
    /// `load` moves inside its bulk edit (`ScopeBulkEdit` spans the whole command), so the move costs no bump.
    mutating func add(_ songs: some Collection<Song>, at position: Int?, bulk: Bool, moveInBulk: Bool = false)
        throws(PlayerError) -> [Int]
    {
        // As in MPD, the songs that fit are added; the caller reports `Playlist is too large` when `ids` is short.
        guard songs.isEmpty || queue.count < queue.maximumLength else { throw .playlistTooLarge }
        let oldCount = queue.count
        var ids: [Int] = []
        ids.reserveCapacity(songs.count)
        queue.reserveCapacity(adding: songs.count)
        for song in songs where queue.count < queue.maximumLength {
            ids.append(try queue.append(song))
            if queue.random {
                let start = (player.currentOrder ?? -1) + 1
                if start < queue.count { queue.shuffleOrderLastWithPriority(start, queue.count) }
            }
            if !bulk { queue.modified() }
        }
        let moves = position.map { $0 < oldCount && !songs.isEmpty && ids.count == songs.count } ?? false
        if moves && moveInBulk, let position { try move(oldCount, queue.count, to: position, bump: false) }
        if bulk && !songs.isEmpty { queue.modified() }
        if moves && !moveInBulk, let position { try move(oldCount, queue.count, to: position) }
        return ids
    }

    /// `playlist::DeleteInternal`.
    private mutating func deleteInternal(_ position: Int) {
        let songOrder = queue.order(ofPosition: position)
        if isPlaying && player.currentOrder == songOrder {
            // The playing song goes: the next one takes over, or playback stops.
            var next = nextOrder(after: songOrder)
            if next == songOrder { next = nil }
            player.currentOrder = next
            if next == nil || player.state == .pause { player.state = .stop }
        } else if player.currentOrder == songOrder {
            player.currentOrder = nil
        }
        queue.deletePosition(position)
        if let current = player.currentOrder, current > songOrder { player.currentOrder = current - 1 }
    }

    mutating func delete(_ start: Int, _ end: Int?) throws(PlayerError) {
        let range = try clip(start, end)
        guard !range.isEmpty else { return }
        for position in range.reversed() { deleteInternal(position) }
        queue.modified()
    }

    /// `playlist::DeletePosition` without checks (consume mode).
    mutating func delete(songAtPosition position: Int) {
        deleteInternal(position)
        queue.modified()
    }

    mutating func delete(id: Int) throws(PlayerError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        deleteInternal(position)
        queue.modified()
    }

    /// `playlist::MoveRange`: `start..<end` moves so that it begins at `to`.
    mutating func move(_ start: Int, _ end: Int, to: Int, bump: Bool = true) throws(PlayerError) {
        guard start < queue.count, end > start, end - 1 < queue.count else { throw .badSongIndex }
        let count = end - start
        guard to >= 0, to + count - 1 < queue.count else { throw .badSongIndex }
        guard start != to else { return }
        queue.moveRange(start, end, to: to)
        if !queue.random, let current = player.currentOrder {
            if (start..<end).contains(current) {
                player.currentOrder = current + to - start
            } else if current >= end && current <= to {
                player.currentOrder = current - count
            } else if current >= to && current < start {
                player.currentOrder = current + count
            }
        }
        if bump { queue.modified() }
    }

    mutating func swap(_ a: Int, _ b: Int) throws(PlayerError) {
        guard a < queue.count, b < queue.count else { throw .badSongIndex }
        queue.swapPositions(a, b)
        if queue.random {
            queue.swapOrders(queue.order(ofPosition: a), queue.order(ofPosition: b))
        } else if let current = player.currentOrder {
            if current == a { player.currentOrder = b } else if current == b { player.currentOrder = a }
        }
        queue.modified()
    }

    mutating func swap(ids a: Int, _ b: Int) throws(PlayerError) {
        guard let pa = queue.position(ofID: a), let pb = queue.position(ofID: b) else { throw .noSuchSong }
        try swap(pa, pb)
    }

    /// `playlist::Shuffle`: physically permutes a range; the playing song goes first, a stopped one is forgotten.
    mutating func shuffle(_ start: Int, _ end: Int?) throws(PlayerError) {
        var range = try clip(start, end)
        guard range.count >= 2 else { return }
        if isPlaying, let current = player.currentOrder {
            let position = queue.order[current]
            if range.contains(position) {
                queue.swapPositions(range.lowerBound, position)
                player.currentOrder = queue.random ? queue.order(ofPosition: range.lowerBound) : range.lowerBound
                range = (range.lowerBound + 1)..<range.upperBound
            }
        } else {
            player.currentOrder = nil
        }
        queue.shuffleRange(range.lowerBound, range.upperBound)
        queue.modified()
    }

    mutating func clear() {
        player.state = .stop
        queue.removeAll()
        player.currentOrder = nil
        lastLoadedPlaylist = nil
        queue.modified()
    }

    /// `playlist::SetPriorityRange`: bumps the version even when no priority changed, as MPD does.
    mutating func setPriority(_ priority: UInt8, _ start: Int, _ end: Int?) throws(PlayerError) {
        let range = try clip(start, end)
        guard !range.isEmpty else { return }
        let currentPosition = self.currentPosition
        for position in range {
            let after = currentPosition.map { queue.order(ofPosition: $0) }
            _ = queue.setPriority(at: position, priority, after: after)
        }
        if let currentPosition { player.currentOrder = queue.order(ofPosition: currentPosition) }
        queue.modified()
    }

    mutating func setPriority(_ priority: UInt8, id: Int) throws(PlayerError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try setPriority(priority, position, position + 1)
    }

    /// `playlist::SetSongIdRange`. `end == nil` plays to the end of the song.
    mutating func setRange(id: Int, start: Double, end: Double?) throws(PlayerError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        // MPD compares the position with the current *order* index here; identical unless random is on.
        if isPlaying && position == player.currentOrder { throw .denied("Cannot edit the current song") }
        var end = end
        if let duration = queue.items[position].song.duration {
            if start > duration { throw .badRange("Invalid start offset") }
            if let e = end, e >= duration { end = nil }
        }
        queue.items[position].range = start == 0 && end == nil ? nil : Queue.ClosedRangeSeconds(start: start, end: end)
        queue.touch(position)
        queue.modified()
    }

    /// `addtagid` / `cleartagid`: only songs with a URL scheme (remote streams) can be edited.
    mutating func editTags(id: Int, _ edit: (inout [Song.Tag]) -> Void) throws(PlayerError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        guard queue.items[position].song.isRemote else { throw .denied("Cannot edit tags of local file") }
        edit(&queue.items[position].song.tags)
        queue.touch(position)
        queue.modified()
    }

    /// `playlist::SetRandom`: turning random on shuffles the order and keeps a playing song first (a stopped one
    /// is forgotten); turning it off restores the position order.
    mutating func setRandom(_ on: Bool) {
        options.random = on
        guard on != queue.random else { return }
        queue.random = on
        if on {
            let position = isPlaying ? currentPosition : nil
            queue.shuffleOrder()
            if let position {
                player.currentOrder = queue.moveOrder(queue.order(ofPosition: position), 0)
            } else {
                player.currentOrder = nil
            }
        } else {
            if let current = player.currentOrder { player.currentOrder = queue.order[current] }
            queue.restoreOrder()
        }
    }

    /// Restores a saved queue (the state file): the songs, then random, then the current song, stopped.
    mutating func restore(_ saved: SavedQueue, random: Bool) {
        queue.removeAll()
        player = PlayerStatus()
        queue.random = false
        for entry in saved.entries where queue.count < queue.maximumLength {
            guard let id = try? queue.append(entry.song, priority: entry.priority) else { break }
            if let range = entry.range, let position = queue.position(ofID: id) {
                queue.items[position].range = range
            }
        }
        queue.modified()
        setRandom(random)
        if !queue.isEmpty {
            let position = saved.currentPosition.flatMap { $0 < queue.count ? $0 : nil } ?? 0
            player.currentOrder = queue.order(ofPosition: position)
        }
    }
}

/// What the state file keeps (`src/StateFile.cxx`): volume, options, the player state and the queue.
public struct SavedState: Equatable, Sendable {
    public var volume: Int?
    public var options: PlaybackOptions
    /// The saved `state:`; playback resumes once a player exists (until then the queue comes back stopped).
    public var playState: PlayState
    /// `time:`, the elapsed seconds when saved while playing.
    public var elapsed: Double?
    public var queue: SavedQueue
    /// `lastloadedplaylist:` (MPD 0.24).
    public var lastLoadedPlaylist: String?

    public init(volume: Int? = nil, options: PlaybackOptions = PlaybackOptions(), playState: PlayState = .stop,
                elapsed: Double? = nil, queue: SavedQueue = SavedQueue(entries: []), lastLoadedPlaylist: String? = nil) {
        self.volume = volume
        self.options = options
        self.playState = playState
        self.elapsed = elapsed
        self.queue = queue
        self.lastLoadedPlaylist = lastLoadedPlaylist
    }
}

/// A queue as the state file stores it.
public struct SavedQueue: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var song: Song
        public var priority: UInt8
        public var range: Queue.ClosedRangeSeconds?

        public init(song: Song, priority: UInt8 = 0, range: Queue.ClosedRangeSeconds? = nil) {
            self.song = song
            self.priority = priority
            self.range = range
        }
    }

    public var entries: [Entry]
    /// The position of the current song (`current:`), if any.
    public var currentPosition: Int?

    public init(entries: [Entry], currentPosition: Int? = nil) {
        self.entries = entries
        self.currentPosition = currentPosition
    }
}

extension Song {
    /// A URI with a scheme (`http://…`, `netease://…`) rather than a path in the music directory (`uri_has_scheme`).
    public var isRemote: Bool {
        guard let colon = uri.firstIndex(of: ":") else { return false }
        return uri[colon...].hasPrefix("://") && colon != uri.startIndex
    }
}

extension PlayerState {
    /// Seeds every partition's shuffle generator (the composition root passes a random seed once at start, so that
    /// random mode differs between runs while the reducer itself stays deterministic).
    public mutating func seedShuffle(_ seed: UInt64) {
        for name in partitions.map(\.name) {
            try? update(name) { (p: inout PartitionState) throws(PlayerError) in p.queue.seed(seed) }
        }
    }
}
