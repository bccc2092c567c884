import PlayerCore

/// The pipe between the decoder thread and the output threads: PCM chunks and markers, in order. Guarded by the
/// engine's lock, like everything the engine shares between threads.
///
/// Entries are numbered from the start of the engine (a *sequence*): an output's cursor is the sequence of the
/// next entry it plays, so it stays valid while the front of the pipe is popped and the array is compacted, and
/// emptying the pipe only moves every cursor to its end.
struct PCMPipe {
    /// Entries before `head` are consumed; they are dropped in batches (`compact`), not one by one.
    private(set) var entries: [Entry] = []
    private(set) var head = 0
    /// The sequence of `entries[head]`.
    private(set) var baseSequence = 0
    /// PCM bytes not consumed yet: what the decoder's wait for room counts.
    private(set) var bufferedBytes = 0

    /// The sequence the next appended entry will have.
    var endSequence: Int { baseSequence + (entries.count - head) }

    /// The index in `entries` of the entry with sequence `sequence` (`entries.count` and beyond: not there yet).
    func index(of sequence: Int) -> Int { head + (sequence - baseSequence) }

    /// The oldest entry not consumed yet.
    var front: Entry? { head < entries.count ? entries[head] : nil }

    /// The index of the first unconsumed entry that satisfies `predicate`.
    func firstIndex(where predicate: (Entry) -> Bool) -> Int? { entries[head...].firstIndex(where: predicate) }

    mutating func append(_ entry: Entry) {
        entries.append(entry)
        bufferedBytes += entry.byteCount
    }

    /// Drops every entry; the sequence goes on from where the pipe ended.
    mutating func removeAll() {
        baseSequence += entries.count - head
        entries.removeAll()
        head = 0
        bufferedBytes = 0
    }

    /// Drops the entries from `index` on.
    mutating func truncate(at index: Int) {
        for entry in entries[index...] { bufferedBytes -= entry.byteCount }
        entries.removeSubrange(index...)
    }

    /// Consumes the front entry.
    mutating func popFront() {
        bufferedBytes -= entries[head].byteCount
        head += 1
        baseSequence += 1
    }

    /// Drops consumed entries once they are most of the array.
    mutating func compact() {
        if head > 256 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}

enum Entry {
    case audio(Chunk)
    case songStart(SongStart)
    /// Playback ends here: the queue ran out, or the song `failed` (its id) could not be decoded (`error`).
    case end(error: String?, failed: Int? = nil)

    var byteCount: Int {
        if case .audio(let chunk) = self { return chunk.data.count }
        return 0
    }

    var isQueuedStart: Bool {
        if case .songStart(let start) = self { return start.queued }
        return false
    }

    var isEnd: Bool {
        if case .end = self { return true }
        return false
    }

    /// The song a start marker begins.
    var startID: Int? {
        if case .songStart(let start) = self { return start.id }
        return nil
    }
}

struct Chunk {
    var data: [UInt8]
    /// The format of `data` (after `audio_output_format`).
    var format: AudioFormat
    /// The decoder's format, shown in `audio:`.
    var sourceFormat: AudioFormat
    var id: Int
    /// Seconds into the song at the first frame.
    var time: Double
    var duration: Double
    var bitrate: Int
}

struct SongStart {
    var id: Int
    var time: Double
    var duration: Double?
    var format: AudioFormat
    var tags: [Song.Tag]
    var queued: Bool
    var borderPause: Bool
}

// MARK: The engine's operations on the pipe (lock held)

extension PlaybackEngine {
    /// Empties the pipe: the decoder abandons its work, outputs drop what their devices buffer.
    func clearPipe() {
        generation += 1
        decoderEpoch += 1
        pipe.removeAll()
        openingQueued = nil
        for runner in runners { runner.cursor = pipe.baseSequence }
    }

    /// Drops the entries from `index` on (a queued song that is no longer next).
    func truncate(at index: Int) {
        pipe.truncate(at: index)
        let end = pipe.endSequence
        for runner in runners where runner.cursor > end { runner.cursor = end }
    }

    var enabledRunners: [OutputRunner] { runners.filter { $0.enabled && !$0.failed } }

    /// Pops audio every enabled output has written; the oldest popped chunk is what is playing now.
    func popConsumed() {
        let enabled = enabledRunners
        guard !enabled.isEmpty else { return }
        let minimum = enabled.map(\.cursor).min()!
        while pipe.baseSequence < minimum, case .audio(let chunk)? = pipe.front {
            pipe.popFront()
            progress?.elapsed = chunk.time + chunk.duration
            playTime += chunk.duration
            progress?.bitrate = chunk.bitrate
            progress?.format = chunk.sourceFormat
        }
        pipe.compact()
    }

    /// A marker at the front, reached by every output: the song border or the end.
    func popMarker() -> [Action] {
        var reports: [Action] = []
        switch pipe.entries[pipe.head] {
        case .songStart(let start):
            progress = PlaybackProgress(id: start.id, elapsed: start.time, duration: start.duration, bitrate: 0,
                                        format: start.format)
            tagsVersion += 1
            tags = (start.id, start.tags, tagsVersion)
            if start.queued {
                reports.append(.engineStartedSong(token: token, id: start.id))
                if start.borderPause {
                    // Single mode: the song before the border is heard to its end (outputs drain), then pause.
                    paused = true
                    drainBeforePause = true
                }
            }
        case .end(let error, _):
            running = false
            endedNaturally = error == nil
            progress = nil
            reports.append(.engineStopped(token: token, error: error))
        case .audio:
            break
        }
        pipe.popFront()
        for runner in runners where runner.cursor < pipe.baseSequence { runner.cursor = pipe.baseSequence }
        lock.broadcast()
        return reports
    }

    // MARK: The decoder's end

    /// Appends to the pipe, waiting while it is full. False when the decoder's work was abandoned meanwhile.
    /// Called on the decoder thread, without the lock.
    func push(_ entry: Entry, epoch: Int) -> Bool {
        lock.withLock {
            while epoch == decoderEpoch && !shutDown && pipe.bufferedBytes >= bufferLimit { lock.wait() }
            guard epoch == decoderEpoch, !shutDown else { return false }
            if case .songStart = entry { openingQueued = nil }
            pipe.append(entry)
            lock.broadcast()
            return true
        }
    }

    /// About a second of audio: enough to open the next song before the current one runs out, short enough that
    /// a changed next song costs little decoding.
    private var bufferLimit: Int {
        guard let format = progress?.format else { return 192_000 }
        return max(65536, format.bytesPerSecond)
    }
}
