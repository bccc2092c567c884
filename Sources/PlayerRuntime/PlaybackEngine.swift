import Glibc
import Logging
import MPDProtocol
import PlayerCore
import Synchronization

/// Where a partition's playback is, for `status` (`elapsed`, `time`, `duration`, `bitrate`, `audio`).
public struct PlaybackProgress: Equatable, Sendable {
    public var id: Int
    public var elapsed: Double
    public var duration: Double?
    /// kbit/s; 0 when unknown (MPD prints `bitrate: 0`).
    public var bitrate: Int
    public var format: AudioFormat?
}

/// One partition's player (DESIGN §4): a decoder thread fills a bounded pipe of PCM chunks; each enabled output
/// has its own thread that takes chunks from the pipe, converts them to what its device accepts, applies the
/// software volume, and writes them.
///
/// The pipe also carries markers: where a song starts and where playback ends. Outputs meet at every marker (no
/// output passes one until all have reached it), so a song border is one moment for all outputs; that moment is
/// when the engine reports `engineStartedSong` / `engineStopped` to the store. Gapless playback falls out of this:
/// the decoder opens the queued song as soon as the current one ends and keeps filling the same pipe, so the
/// outputs see one continuous stream.
///
/// The store calls `start`, `queueNext`, `setPaused`, `stop` under its own lock; they only change guarded state
/// and wake threads. The engine never calls the store while holding its lock (reports are delivered after it is
/// released), so the two locks cannot deadlock.
public final class PlaybackEngine: @unchecked Sendable {
    public struct Settings: Sendable {
        public var replayGain = ReplayGainSettings()
        /// `audio_output_format`: the decoder's output is converted to it before the pipe.
        public var outputFormat = AudioFormatMask()
        public init() {}
    }

    private let decoders: any AudioDecoderFactory
    private let converters: any PCMConverterFactory
    private let locate: @Sendable (Song) -> String
    private let report: @Sendable (Action) -> Void
    private let options: @Sendable () -> PlaybackOptions
    private let settings: Settings
    private let logger: Logger
    private let lock = ConditionLock()

    // Everything below is guarded by `lock`.
    private var token = 0
    /// Bumped when the pipe is emptied (start, stop): outputs drop what their device buffers.
    private var generation = 0
    /// Bumped whenever the decoder must abandon what it decodes.
    private var decoderEpoch = 0
    private var job: DecodeJob?
    private var queued: (item: PlaybackItem, borderPause: Bool)?
    /// The queued song the decoder has taken but whose start it has not pushed yet.
    private var openingQueued: Int?
    private var entries: [Entry] = []
    private var head = 0
    private var baseSequence = 0
    private var bufferedBytes = 0
    private var running = false
    private var paused = false
    /// Set at a border pause: outputs play out what their devices hold before pausing (MPD drains there).
    private var drainBeforePause = false
    private var endedNaturally = false
    private var progress: PlaybackProgress?
    /// The current song's tags for outputs that carry them (httpd); `version` changes with stream titles.
    private var tags: (id: Int, tags: [Song.Tag], version: Int)?
    private var tagsVersion = 0
    private var volume = 100
    private var runners: [OutputRunner] = []
    private var shutDown = false

    public init(decoders: any AudioDecoderFactory, converters: any PCMConverterFactory, settings: Settings = Settings(),
                locate: @escaping @Sendable (Song) -> String, options: @escaping @Sendable () -> PlaybackOptions,
                report: @escaping @Sendable (Action) -> Void, logger: Logger) {
        self.decoders = decoders
        self.converters = converters
        self.settings = settings
        self.locate = locate
        self.options = options
        self.report = report
        self.logger = logger
        startThread(name: "decoder") { [self] in decoderLoop() }
    }

    // MARK: Commands (called by the store, under its lock: never block)

    public func start(_ request: PlaybackStart) {
        lock.withLock {
            token = request.token
            clearPipe()
            job = DecodeJob(item: request.item, seek: request.seek, epoch: decoderEpoch)
            running = true
            paused = request.paused
            drainBeforePause = false
            endedNaturally = false
            let item = request.item
            // Until the decoder reports, the song's known format stands in (MPD's `play` waits for the decoder,
            // so its `status` has `audio:` at once); a seek in the same song keeps what was measured.
            let known = progress.flatMap { $0.id == item.id ? $0 : nil }
            progress = PlaybackProgress(id: item.id, elapsed: request.seek ?? item.range?.start ?? 0,
                                        duration: known?.duration ?? item.song.duration, bitrate: known?.bitrate ?? 0,
                                        format: known?.format ?? item.song.audioFormat.flatMap(AudioFormat.init))
            tagsVersion += 1
            tags = (item.id, item.song.tags, tagsVersion)
            lock.broadcast()
        }
    }

    public func queueNext(token: Int, _ item: PlaybackItem?, borderPause: Bool) {
        lock.withLock {
            guard token == self.token, running else { return }
            let next = item.map { (item: $0, borderPause: borderPause) }
            // A stream whose URL must be looked up (NetEase) starts that now, well before the border.
            if let item { decoders.prepare(locate(item.song)) }
            // Already decoding (or finished) past the current song? Take back what was decoded after it.
            if let index = entries[head...].firstIndex(where: { $0.isQueuedStart || $0.isEnd }) {
                if case .songStart(let start) = entries[index], start.id == item?.id,
                   start.borderPause == borderPause { return }
                truncate(at: index)
                decoderEpoch += 1
                if let next {
                    job = DecodeJob(item: next.item, seek: nil, epoch: decoderEpoch, queued: true,
                                    borderPause: next.borderPause)
                } else {
                    append(.end(error: nil))
                }
                queued = nil
            } else if openingQueued != nil {
                // Between songs: the decoder took the old queued song but has not pushed its start yet.
                decoderEpoch += 1
                job = next.map { DecodeJob(item: $0.item, seek: nil, epoch: decoderEpoch, queued: true,
                                           borderPause: $0.borderPause) }
                if job == nil { append(.end(error: nil)) }
                queued = nil
            } else {
                queued = next
            }
            lock.broadcast()
        }
    }

    public func setPaused(_ on: Bool) {
        lock.withLock {
            paused = on
            drainBeforePause = false
            lock.broadcast()
        }
    }

    public func stop() {
        lock.withLock {
            // After the queue ended by itself, the store's stop only confirms it: the outputs are still draining the
            // last song's tail (into a fifo's reader, a pipe's command, a sound card), so nothing is cancelled. A new
            // generation here made them cancel instead (a fifo output then threw away what its reader had not read).
            let endedByItself = !running && endedNaturally
            if !endedByItself {
                clearPipe()
                endedNaturally = false
            }
            job = nil
            queued = nil
            running = false
            paused = false
            progress = nil
            tags = nil
            lock.broadcast()
        }
    }

    /// The software mixer's volume for outputs with `mixer_type "software"`.
    public func setVolume(_ percent: Int) {
        lock.withLock { volume = percent }
    }

    public var currentProgress: PlaybackProgress? { lock.withLock { running ? progress : nil } }

    // MARK: Outputs

    /// Adds an output; it plays while enabled.
    public func attach(_ runner: OutputRunner) {
        lock.withLock {
            runner.cursor = baseSequence + (entries.count - head)
            for other in runners where other.enabled { runner.cursor = min(runner.cursor, other.cursor) }
            runner.seenGeneration = generation
            runners.append(runner)
            lock.broadcast()
        }
        startThread(name: "output:\(runner.description.name)") { [self] in outputLoop(runner) }
    }

    public func detach(_ runner: OutputRunner) {
        lock.withLock {
            runners.removeAll { $0 === runner }
            runner.detached = true
            popConsumed()
            lock.broadcast()
        }
    }

    /// Whether the output is enabled (a failed output is disabled).
    public func isEnabled(_ runner: OutputRunner) -> Bool { lock.withLock { runner.enabled } }

    public func setEnabled(_ runner: OutputRunner, _ on: Bool) {
        lock.withLock {
            guard runner.enabled != on else { return }
            if on {
                runner.failed = false
                runner.cursor = runners.filter { $0.enabled && $0 !== runner }.map(\.cursor).max()
                    ?? baseSequence + (entries.count - head)
                runner.seenGeneration = generation
            }
            runner.enabled = on
            popConsumed()
            lock.broadcast()
        }
    }

    public func shutdown() {
        lock.withLock {
            shutDown = true
            clearPipe()
            running = false
            lock.broadcast()
        }
    }

    // MARK: Pipe (lock held)

    private func clearPipe() {
        generation += 1
        decoderEpoch += 1
        baseSequence += entries.count - head
        entries.removeAll()
        head = 0
        bufferedBytes = 0
        openingQueued = nil
        for runner in runners { runner.cursor = baseSequence }
    }

    private func append(_ entry: Entry) {
        entries.append(entry)
        bufferedBytes += entry.byteCount
    }

    /// Drops the entries from `index` on (a queued song that is no longer next).
    private func truncate(at index: Int) {
        for entry in entries[index...] { bufferedBytes -= entry.byteCount }
        entries.removeSubrange(index...)
        let end = baseSequence + (entries.count - head)
        for runner in runners where runner.cursor > end { runner.cursor = end }
    }

    private var enabledRunners: [OutputRunner] { runners.filter { $0.enabled && !$0.failed } }

    /// Pops audio every enabled output has written; the oldest popped chunk is what is playing now.
    private func popConsumed() {
        let enabled = enabledRunners
        guard !enabled.isEmpty else { return }
        let minimum = enabled.map(\.cursor).min()!
        while head < entries.count, baseSequence < minimum, case .audio(let chunk) = entries[head] {
            bufferedBytes -= chunk.data.count
            progress?.elapsed = chunk.time + chunk.duration
            progress?.bitrate = chunk.bitrate
            progress?.format = chunk.sourceFormat
            head += 1
            baseSequence += 1
        }
        if head > 256 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// A marker at the front, reached by every output: the song border or the end.
    private func popMarker() -> [Action] {
        var reports: [Action] = []
        switch entries[head] {
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
        case .end(let error):
            running = false
            endedNaturally = error == nil
            progress = nil
            reports.append(.engineStopped(token: token, error: error))
        case .audio:
            break
        }
        bufferedBytes -= entries[head].byteCount
        head += 1
        baseSequence += 1
        for runner in runners where runner.cursor < baseSequence { runner.cursor = baseSequence }
        lock.broadcast()
        return reports
    }

    // MARK: Decoder thread

    private func decoderLoop() {
        lock.lock()
        while !shutDown {
            guard let job, job.epoch == decoderEpoch else {
                self.job = nil
                lock.wait()
                continue
            }
            self.job = nil
            openingQueued = job.queued ? job.item.id : nil
            lock.unlock()
            decode(job)
            lock.lock()
        }
        lock.unlock()
    }

    /// Decodes `job`'s song and then, while nothing interrupts, each queued song after it. With crossfade on,
    /// the queued song starts `crossfade` seconds before the current one ends and the two are mixed.
    private func decode(_ first: DecodeJob) {
        let epoch = first.epoch
        guard var song = open(first) else { return }
        var job = first
        var incoming: SongStream?
        var overlap: (start: Double, length: Double) = (0, 0)
        guard push(.songStart(songStart(song, job: job)), epoch: epoch) else { return }
        while true {
            var chunkBytes = max(song.format.bytesPerFrame,
                                 song.format.bytesPerSecond / 20 / song.format.bytesPerFrame * song.format.bytesPerFrame)
            if incoming == nil, let fade = crossfadeStart(of: song) {
                if fade.bytesUntil == 0 {
                    if let started = startCrossfade(after: song, epoch: epoch) {
                        incoming = started.stream
                        job = started.job
                        overlap = (song.time, max(0.001, (song.endTime ?? song.time) - song.time))
                        guard push(.songStart(songStart(started.stream, job: started.job)), epoch: epoch) else { return }
                    }
                } else {
                    // Stop the chunk exactly where the crossfade begins.
                    chunkBytes = min(chunkBytes, fade.bytesUntil)
                }
            }
            let piece: [UInt8]?
            do { piece = try song.read(upTo: chunkBytes) } catch {
                logger.error("failed to decode \(song.item.song.uri): \(error.message)")
                _ = push(.end(error: failure(song.item, error)), epoch: epoch)
                return
            }
            if let streamTags = song.decoder.takeStreamTags() { publish(streamTags, of: song.item, epoch: epoch) }
            if var pcm = piece {
                let time = song.time - song.format.seconds(ofBytes: pcm.count)
                var id = song.item.id
                var chunkTime = time
                var bitrate = song.bitrate
                if let incoming {
                    // Linear crossfade: the old song fades out while the new one fades in.
                    let mixed: [UInt8]
                    do { mixed = try incoming.read(exactly: pcm.count) } catch {
                        _ = push(.end(error: failure(incoming.item, error)), epoch: epoch)
                        return
                    }
                    let from = (time - overlap.start) / overlap.length
                    let to = (song.time - overlap.start) / overlap.length
                    PCMScaling.crossfade(&pcm, with: mixed, format: song.format.sampleFormat, from: from, to: to)
                    id = incoming.item.id
                    chunkTime = incoming.time - incoming.format.seconds(ofBytes: pcm.count)
                    bitrate = incoming.bitrate
                }
                let chunk = Chunk(data: pcm, format: song.format, sourceFormat: incoming?.source ?? song.source, id: id,
                                  time: chunkTime, duration: song.format.seconds(ofBytes: pcm.count), bitrate: bitrate)
                guard push(.audio(chunk), epoch: epoch) else { return }
                continue
            }

            // The song ended: the crossfaded song goes on, or the queued one starts, or playback ends.
            if let next = incoming {
                song = next
                incoming = nil
                continue
            }
            let next: DecodeJob? = lock.withLock {
                guard epoch == decoderEpoch else { return nil }
                if let queued {
                    self.queued = nil
                    openingQueued = queued.item.id
                    return DecodeJob(item: queued.item, seek: nil, epoch: epoch, queued: true,
                                     borderPause: queued.borderPause)
                }
                openingQueued = nil
                append(.end(error: nil))
                lock.broadcast()
                return nil
            }
            guard let next, let opened = open(next) else { return }
            job = next
            song = opened
            guard push(.songStart(songStart(song, job: job)), epoch: epoch) else { return }
        }
    }

    /// With crossfade on and a song of known length: how many bytes remain before the fade begins (0: now).
    /// nil when there is no crossfade, or the fade point has passed (a seek into the last seconds).
    private func crossfadeStart(of song: SongStream) -> (bytesUntil: Int, Void)? {
        // MixRamp figures come from tags and may say anything (`inf`, `nan`): only a finite overlap fades.
        guard let seconds = crossfadeSeconds(after: song), seconds.isFinite, let end = song.endTime else { return nil }
        let remaining = end - song.time
        guard remaining > 0, remaining.isFinite else { return nil }
        guard remaining > seconds else { return (0, ()) }
        let frames = Int(saturating: ((remaining - seconds) * Double(song.format.sampleRate)).rounded())
        return frames == 0 ? (0, ()) : (frames * song.format.bytesPerFrame, ())
    }

    /// How long the current song and the queued one overlap (`CrossFadeSettings::Calculate`): nothing unless
    /// `crossfade` is on and both songs are at least 20 s and longer than it; with `mixrampdelay` and MixRamp tags
    /// on both songs, the overlap where the old song's end and the new song's start cross `mixrampdb`, minus the
    /// delay; otherwise the crossfade time.
    private func crossfadeSeconds(after song: SongStream) -> Double? {
        let options = options()
        let seconds = options.crossfade
        guard seconds > 0, let current = song.duration, current >= Self.minimumCrossfadeSong, seconds < current,
              let next = lock.withLock({ queued.flatMap { $0.borderPause ? nil : $0.item } })
        else { return nil }
        let delay = Double(options.mixrampDelay)
        let needsFacts = next.song.duration == nil || delay > 0
        let facts = needsFacts ? nextSongFacts(next) : nil
        guard let nextDuration = next.song.duration ?? facts?.duration, nextDuration >= Self.minimumCrossfadeSong,
              seconds < nextDuration else { return nil }
        guard delay > 0, let end = song.decoder.mixRampEnd, let facts, let start = facts.start else { return seconds }
        let incoming = MixRamp.overlap(start, at: Double(options.mixrampDB) - facts.gainDB)
        let outgoing = MixRamp.overlap(end, at: Double(options.mixrampDB) - song.gainDB)
        guard let incoming, let outgoing, delay <= incoming + outgoing else { return nil }
        return incoming + outgoing - delay
    }

    /// MPD crossfades only songs of at least 20 s (`CrossFadeSettings::MIN_TOTAL_TIME`).
    static let minimumCrossfadeSong: Double = 20

    /// What crossfading needs to know of the queued song before it starts — its length (when the queue does
    /// not know it), `MIXRAMP_START` and ReplayGain in dB — read once per song by opening it (decoder thread only).
    private var nextSongCache: (id: Int, facts: NextSongFacts?)?

    struct NextSongFacts {
        var duration: Double?
        var start: String?
        var gainDB: Double
    }

    private func nextSongFacts(_ item: PlaybackItem) -> NextSongFacts? {
        if let cache = nextSongCache, cache.id == item.id { return cache.facts }
        var facts: NextSongFacts?
        if let decoder = try? decoders.open(locate(item.song)) {
            let gain = PCMScaling.replayGainFactor(decoder.replayGain, mode: effectiveReplayGainMode(),
                                                   settings: settings.replayGain)
            let duration = item.range.map { ($0.end ?? decoder.duration ?? 0) - $0.start } ?? decoder.duration
            facts = NextSongFacts(duration: duration, start: decoder.mixRampStart, gainDB: 20 * log10(max(gain, 1e-9)))
        }
        nextSongCache = (item.id, facts)
        return facts
    }

    /// Tags that arrived inside a stream (an internet radio's title): the queue's song gets them (`currentsong`),
    /// and outputs that carry tags send them on.
    private func publish(_ streamTags: [Song.Tag], of item: PlaybackItem, epoch: Int) {
        let token: Int? = lock.withLock {
            guard epoch == decoderEpoch else { return nil }
            var merged = tags.flatMap { $0.id == item.id ? $0.tags : nil } ?? item.song.tags
            for tag in streamTags {
                merged.removeAll { $0.name == tag.name }
                merged.append(tag)
            }
            tagsVersion += 1
            tags = (item.id, merged, tagsVersion)
            return self.token
        }
        if let token { report(.engineTags(token: token, id: item.id, tags: streamTags)) }
    }

    /// MPD 0.24's `Failed to decode "PATH"; CAUSE`: the file's path for local songs, the URL for streams.
    private func failure(_ item: PlaybackItem, _ error: DecoderError) -> String {
        let text = "Failed to decode " + MessageText.quoted(locate(item.song))
        return error.cause.map { text + "; " + $0 } ?? text
    }

    /// Opens a job's song; on failure pushes the end with MPD's error text and returns nil.
    private func open(_ job: DecodeJob) -> SongStream? {
        do throws(DecoderError) {
            return try SongStream(item: job.item, seek: job.seek, decoders: decoders, converters: converters,
                                  outputFormat: settings.outputFormat,
                                  gain: { PCMScaling.replayGainFactor($0, mode: self.effectiveReplayGainMode(),
                                                                      settings: self.settings.replayGain) },
                                  location: locate(job.item.song))
        } catch {
            logger.error("failed to play \(job.item.song.uri): \(error.message)")
            _ = push(.end(error: failure(job.item, error)), epoch: job.epoch)
            return nil
        }
    }

    private func songStart(_ song: SongStream, job: DecodeJob) -> SongStart {
        SongStart(id: song.item.id, time: song.time, duration: song.duration, format: song.source,
                  tags: song.item.song.tags, queued: job.queued, borderPause: job.borderPause)
    }

    /// With `crossfade` > 0, once the current song is within that many seconds of its end, takes the queued song
    /// and opens it — if it has the same format (MPD crossfades only then) and single mode does not pause there.
    private func startCrossfade(after song: SongStream, epoch: Int) -> (stream: SongStream, job: DecodeJob)? {
        let taken: (item: PlaybackItem, borderPause: Bool)? = lock.withLock {
            guard epoch == decoderEpoch, let queued, !queued.borderPause else { return nil }
            self.queued = nil
            openingQueued = queued.item.id
            return queued
        }
        guard let taken else { return nil }
        let job = DecodeJob(item: taken.item, seek: nil, epoch: epoch, queued: true, borderPause: false)
        let stream = try? SongStream(item: job.item, seek: nil, decoders: decoders, converters: converters,
                                     outputFormat: settings.outputFormat,
                                     gain: { PCMScaling.replayGainFactor($0, mode: self.effectiveReplayGainMode(),
                                                                         settings: self.settings.replayGain) },
                                     location: locate(job.item.song))
        guard let stream, stream.format == song.format else {
            // No crossfade after all: the song follows gaplessly (and reports its own error if it is broken).
            lock.withLock {
                if epoch == decoderEpoch && self.queued == nil && openingQueued == taken.item.id {
                    self.queued = taken
                    openingQueued = nil
                }
            }
            return nil
        }
        return (stream, job)
    }

    private func effectiveReplayGainMode() -> ReplayGainMode {
        let options = options()
        if options.replayGainMode == .auto { return options.random ? .track : .album }
        return options.replayGainMode
    }

    /// Appends to the pipe, waiting while it is full. False when the decoder's work was abandoned meanwhile.
    private func push(_ entry: Entry, epoch: Int) -> Bool {
        lock.withLock {
            while epoch == decoderEpoch && !shutDown && bufferedBytes >= bufferLimit { lock.wait() }
            guard epoch == decoderEpoch, !shutDown else { return false }
            if case .songStart = entry { openingQueued = nil }
            append(entry)
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

    // MARK: Output threads

    private func outputLoop(_ runner: OutputRunner) {
        let state = OutputState(runner: runner, converters: converters, logger: logger)
        /// While paused: when the sink wants its next `whilePaused` call (nil: never).
        var nextPausedCall: Double?
        lock.lock()
        while !shutDown && !runner.detached {
            if !runner.enabled || runner.failed {
                if state.isOpen {
                    lock.unlock()
                    state.close(drain: false)
                    lock.lock()
                }
                lock.wait()
                continue
            }
            if runner.seenGeneration != generation {
                runner.seenGeneration = generation
                if state.isOpen {
                    lock.unlock()
                    state.cancel()
                    lock.lock()
                }
                continue
            }
            if !running {
                if state.isOpen {
                    let drain = endedNaturally
                    lock.unlock()
                    state.close(drain: drain)
                    lock.lock()
                    continue
                }
                lock.wait()
                continue
            }
            // Markers carry no sound: a song start is taken even while paused, so `status` knows the new song's
            // format and duration at once.
            if paused, head < entries.count, runner.cursor == baseSequence, case .songStart = entries[head] {
                let reports = popMarker()
                if !reports.isEmpty {
                    lock.unlock()
                    for action in reports { report(action) }
                    lock.lock()
                }
                continue
            }
            if paused {
                if state.isOpen && !state.isPaused {
                    let drain = drainBeforePause
                    lock.unlock()
                    if drain { state.drain() }
                    state.pause()
                    lock.lock()
                    nextPausedCall = monotonicSeconds()
                    continue
                }
                // A sink with work while paused (httpd's silence) is called when it asked to be; every other
                // condition is looked at again first, so a wake-up meanwhile is not lost.
                if state.isOpen, let due = nextPausedCall {
                    let now = monotonicSeconds()
                    if now >= due {
                        lock.unlock()
                        let next = state.whilePaused()
                        lock.lock()
                        nextPausedCall = next.map { monotonicSeconds() + $0 }
                        continue
                    }
                    lock.wait(seconds: due - now)
                    continue
                }
                lock.wait()
                continue
            }
            let index = head + (runner.cursor - baseSequence)
            guard index < entries.count else {
                lock.wait()
                continue
            }
            switch entries[index] {
            case .audio(let chunk):
                let generation = self.generation
                let volume = runner.description.softwareMixer ? self.volume : 100
                let songTags = tags.flatMap { $0.id == chunk.id ? (tags: $0.tags, version: $0.version) : nil }
                lock.unlock()
                let result = state.play(chunk, volume: volume, tags: songTags)
                lock.lock()
                if case .failure(let error) = result {
                    logger.error("output \"\(runner.description.name)\" (\(runner.description.plugin)) failed: \(error.message); disabled")
                    runner.failed = true
                    runner.enabled = false
                    popConsumed()
                    let notify = runner.onFailure
                    lock.unlock()
                    notify?()
                    lock.lock()
                    lock.broadcast()
                    continue
                }
                if generation == self.generation, head + (runner.cursor - baseSequence) == index {
                    runner.cursor += 1
                    popConsumed()
                    lock.broadcast()
                }
            case .songStart, .end:
                guard index == head else {
                    lock.wait()
                    continue
                }
                let reports = popMarker()
                if !reports.isEmpty {
                    lock.unlock()
                    for action in reports { report(action) }
                    lock.lock()
                }
            }
        }
        lock.unlock()
        state.close(drain: false)
    }
}

/// An output as the engine runs it. Its fields are guarded by the engine's lock.
public final class OutputRunner: @unchecked Sendable {
    public let description: OutputDescription
    let makeSink: SinkFactory
    var enabled: Bool
    var failed = false
    var detached = false
    var cursor = 0
    var seenGeneration = 0
    /// Called (outside the engine lock) when the output failed and was disabled, so `outputs` and idle `output`
    /// can tell clients.
    let onFailure: (@Sendable () -> Void)?

    /// `outputset` changes these; the description keeps the configured ones.
    let attributes: Mutex<[(name: String, value: String)]>

    /// The same output for another engine (`moveoutput`): a runner's cursor belongs to one engine's pipe.
    convenience init(moving other: OutputRunner, enabled: Bool) {
        self.init(description: other.description, enabled: enabled, onFailure: other.onFailure,
                  makeSink: other.makeSink)
        attributes.withLock { $0 = other.attributes.withLock { $0 } }
    }

    public init(description: OutputDescription, enabled: Bool, onFailure: (@Sendable () -> Void)? = nil,
                makeSink: @escaping SinkFactory) {
        self.description = description
        self.attributes = Mutex(description.attributes)
        self.enabled = enabled
        self.onFailure = onFailure
        self.makeSink = makeSink
    }

}

/// What an output thread owns: its sink, the converter to the sink's format, and the clock that paces sinks
/// which do not keep time themselves.
private final class OutputState {
    let runner: OutputRunner
    let converters: any PCMConverterFactory
    let logger: Logger
    var sink: (any AudioSink)?
    var requested: AudioFormat?
    var accepted: AudioFormat?
    var converter: (any PCMConverting)?
    var converterSource: AudioFormat?
    var isPaused = false
    var clockStart: Double?
    var clockFrames = 0
    var lastTagsVersion: Int?

    init(runner: OutputRunner, converters: any PCMConverterFactory, logger: Logger) {
        self.runner = runner
        self.converters = converters
        self.logger = logger
    }

    var isOpen: Bool { sink != nil }

    func play(_ chunk: Chunk, volume: Int, tags: (tags: [Song.Tag], version: Int)?) -> Result<Void, OutputError> {
        do throws(OutputError) {
            let target = runner.description.format.apply(to: chunk.format)
            if sink == nil || requested != target {
                if let sink {
                    sink.drain()
                    sink.close()
                }
                sink = nil
                let sink = try runner.makeSink()
                let accepted = try sink.open(target)
                self.sink = sink
                self.requested = target
                self.accepted = accepted
                converterSource = nil
                clockStart = nil
                lastTagsVersion = nil
            }
            guard let sink, let accepted else { return .success(()) }
            // The source format can change at a song border while the device format stays (a fixed `format`).
            if converterSource != chunk.format {
                converterSource = chunk.format
                converter = nil
                if accepted != chunk.format {
                    do throws(DecoderError) {
                        converter = try converters.makeConverter(from: chunk.format, to: accepted)
                    } catch {
                        throw OutputError("cannot convert \(chunk.format) to \(accepted): \(error.message)")
                    }
                }
            }
            if isPaused {
                isPaused = false
                clockStart = nil
            }
            if let tags, lastTagsVersion != tags.version {
                lastTagsVersion = tags.version
                sink.sendTags(tags.tags)
            }
            var data = chunk.data
            if let converter {
                var converted: [UInt8] = []
                data.withUnsafeBytes { converter.convert($0, into: &converted) }
                data = converted
            }
            if volume < 100 {
                PCMScaling.scale(&data, format: accepted.sampleFormat, by: PCMScaling.softwareVolumeFactor(volume))
            }
            if runner.description.paced && !sink.keepsTime {
                pace(frames: data.count / accepted.bytesPerFrame, rate: accepted.sampleRate)
            }
            var failure: OutputError?
            data.withUnsafeBytes { raw in
                do throws(OutputError) { try sink.write(raw) } catch { failure = error }
            }
            if let failure { throw failure }
            return .success(())
        } catch {
            close(drain: false)
            return .failure(error)
        }
    }

    /// Sleeps until the chunk is due, as a device would block: MPD's output timer.
    private func pace(frames: Int, rate: Int) {
        let now = monotonicSeconds()
        if clockStart == nil {
            clockStart = now
            clockFrames = 0
        }
        let due = clockStart! + Double(clockFrames) / Double(rate)
        if due > now { usleep(UInt32(min(1.0, due - now) * 1_000_000)) }
        else if now - due > 0.5 {
            // Fell far behind (the machine stalled): restart the clock instead of rushing to catch up.
            clockStart = now
            clockFrames = 0
        }
        clockFrames += frames
    }

    func cancel() {
        sink?.cancel()
        clockStart = nil
    }

    func drain() {
        sink?.drain()
    }

    func pause() {
        sink?.pause()
        isPaused = true
        clockStart = nil
    }

    func whilePaused() -> Double? { sink?.whilePaused() }

    func close(drain: Bool) {
        guard let sink else { return }
        if drain { sink.drain() } else { sink.cancel() }
        sink.close()
        self.sink = nil
        requested = nil
        accepted = nil
        converter = nil
        converterSource = nil
        isPaused = false
        clockStart = nil
    }
}

struct DecodeJob {
    var item: PlaybackItem
    var seek: Double?
    var epoch: Int
    var queued = false
    var borderPause = false
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

enum Entry {
    case audio(Chunk)
    case songStart(SongStart)
    case end(error: String?)

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
}
