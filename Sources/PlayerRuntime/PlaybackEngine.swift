import Logging
import MPDProtocol
import PlayerCore

/// Where a partition's playback is, for `status` (`elapsed`, `time`, `duration`, `bitrate`, `audio`).
public struct PlaybackProgress: Equatable, Sendable {
    public var id: Int
    public var elapsed: Double
    public var duration: Double?
    /// kbit/s; 0 when unknown (MPD prints `bitrate: 0`).
    public var bitrate: Int
    public var format: AudioFormat?
}

/// One partition's player: a decoder thread fills a bounded pipe of PCM chunks; each enabled output
/// has its own thread that takes chunks from the pipe, converts them to what its device accepts, applies the
/// software volume, and writes them.
///
/// The pipe also carries markers: where a song starts and where playback ends. Outputs meet at every marker (no
/// output passes one until all have reached it), so a song border is one moment for all outputs; that moment is
/// when the engine reports `engineStartedSong` / `engineStopped` to the store. Gapless playback falls out of this:
/// the decoder opens the queued song as soon as the current one ends and keeps filling the same pipe, so the
/// outputs see one continuous stream.
///
/// The parts, one file each:
/// - this file: the commands and the outputs API, which callers run on their own threads;
/// - `PlaybackEngine+Pipe.swift`: the pipe (`PCMPipe`, its entries) and the engine's operations on it;
/// - `PlaybackEngine+Decoder.swift`, `PlaybackEngine+Crossfade.swift`: the decoder thread;
/// - `OutputRunner.swift`: an output (`OutputRunner`) and its thread.
///
/// Threads:
/// - Callers: the store calls `start`, `queueNext`, `setPaused`, `stop`, `setVolume` under its own lock, and
///   `setOptions` (through `AudioPlayer`) whenever a partition's options change, also under its lock;
///   `AudioPlayer` calls the outputs API. None of these block: they change guarded state and wake the threads.
/// - The decoder thread (one per engine, `decoderLoop`): opens and reads songs without the lock, then pushes
///   their PCM into the pipe under it, waiting while the pipe is full.
/// - An output thread per attached output (`outputLoop`): decides under the lock what to do next, and lets go of
///   the lock around every call into its sink (open, write, drain, pause, close), which may block.
///
/// Locking: one `ConditionLock` guards all of the engine's state below and is the only lock the engine takes.
/// Every change broadcasts, and every wait re-checks its condition. The lock order is the store's lock, then
/// `AudioPlayer`'s, then this lock: the engine's lock is the innermost. The engine never calls out while holding
/// it — reports to the store and an output's `onFailure` are delivered after it is released, decoders and sinks
/// are used outside it — so no lock can be waited for while it is held. (The exceptions are `locate` and
/// `AudioDecoderFactory.prepare`, called under it by `queueNext`: neither may block.)
public final class PlaybackEngine: @unchecked Sendable {
    public struct Settings: Sendable {
        public var replayGain = ReplayGainSettings()
        /// `audio_output_format`: the decoder's output is converted to it before the pipe.
        public var outputFormat = AudioFormatMask()
        public init() {}
    }

    let decoders: any AudioDecoderFactory
    let converters: any PCMConverterFactory
    let locate: @Sendable (Song) -> String
    let report: @Sendable (Action) -> Void
    let settings: Settings
    let logger: Logger
    let lock = ConditionLock()

    // Everything below is guarded by `lock`.
    var token = 0
    /// The partition's options (crossfade, MixRamp, ReplayGain mode, random): the engine's own copy, pushed by
    /// their owner whenever they change (`setOptions`), so the decoder thread reads them under this lock instead
    /// of asking the store for them at every chunk.
    var options: PlaybackOptions
    /// Bumped when the pipe is emptied (start, stop): outputs drop what their device buffers.
    var generation = 0
    /// Bumped whenever the decoder must abandon what it decodes.
    var decoderEpoch = 0
    var job: DecodeJob?
    var queued: (item: PlaybackItem, borderPause: Bool)?
    /// The queued song the decoder has taken but whose start it has not pushed yet.
    var openingQueued: Int?
    var pipe = PCMPipe()
    var running = false
    var paused = false
    /// Set at a border pause: outputs play out what their devices hold before pausing (MPD drains there).
    var drainBeforePause = false
    var endedNaturally = false
    var progress: PlaybackProgress?
    /// Seconds of audio every output has played since the engine was made: `stats`' `playtime:` (MPD's
    /// `PlayerControl::total_play_time`, which grows by each chunk the player sends to its outputs). It grows only
    /// while outputs take audio, so never while paused or stopped.
    var playTime: Double = 0
    /// The current song's tags for outputs that carry them (httpd); `version` changes with stream titles.
    var tags: (id: Int, tags: [Song.Tag], version: Int)?
    var tagsVersion = 0
    var volume = 100
    var runners: [OutputRunner] = []
    var shutDown = false

    /// What crossfading needs to know of the queued song, read once per song (decoder thread only, unguarded).
    var nextSongCache: (id: Int, facts: NextSongFacts?)?

    /// `options`: the partition's options now; every later change must come through `setOptions`.
    public init(decoders: any AudioDecoderFactory, converters: any PCMConverterFactory, settings: Settings = Settings(),
                locate: @escaping @Sendable (Song) -> String, options: PlaybackOptions = PlaybackOptions(),
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
            if let index = pipe.firstIndex(where: { $0.isQueuedStart || $0.isEnd }) {
                if case .songStart(let start) = pipe.entries[index], start.id == item?.id,
                   start.borderPause == borderPause { return }
                // The song heard now (or started ahead of it in the pipe) failed: its end reports the error when the
                // outputs get there, and the store plays on from it. Only an end of the old queued song goes.
                if case .end(_?, let failed?) = pipe.entries[index], failed == progress?.id
                    || pipe.entries[pipe.head..<index].contains(where: { $0.startID == failed }) { return }
                truncate(at: index)
                decoderEpoch += 1
                if let next {
                    job = DecodeJob(item: next.item, seek: nil, epoch: decoderEpoch, queued: true,
                                    borderPause: next.borderPause)
                } else {
                    pipe.append(.end(error: nil))
                }
                queued = nil
            } else if openingQueued != nil {
                // Between songs: the decoder took the old queued song but has not pushed its start yet.
                decoderEpoch += 1
                job = next.map { DecodeJob(item: $0.item, seek: nil, epoch: decoderEpoch, queued: true,
                                           borderPause: $0.borderPause) }
                if job == nil { pipe.append(.end(error: nil)) }
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

    /// The partition's options changed. The decoder reads them at the same points as before they were pushed:
    /// per chunk while it decides whether to crossfade, and when it opens a song (the ReplayGain mode). Nothing
    /// waits for them, so nobody is woken.
    public func setOptions(_ options: PlaybackOptions) {
        lock.withLock { self.options = options }
    }

    public var currentProgress: PlaybackProgress? { lock.withLock { running ? progress : nil } }

    /// `playtime:` of `stats`: the seconds played so far (`playTime`).
    public var totalPlayTime: Double { lock.withLock { playTime } }

    // MARK: Outputs

    /// Adds an output; it plays while enabled.
    public func attach(_ runner: OutputRunner) {
        lock.withLock {
            runner.cursor = pipe.endSequence
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
                    ?? pipe.endSequence
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
}
