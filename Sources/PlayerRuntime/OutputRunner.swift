import Glibc
import Logging
import PlayerCore
import Synchronization

/// An output as the engine runs it. Its fields are guarded by the engine's lock.
public final class OutputRunner: @unchecked Sendable {
    public let description: OutputDescription
    let makeSink: SinkFactory
    var enabled: Bool
    var failed = false
    var detached = false
    var cursor = 0
    var seenGeneration = 0
    /// Called (outside the engine lock) when the output failed and was disabled, so that the store's state
    /// (`outputs`, idle `output`) says so.
    let onFailure: (@Sendable () -> Void)?

    /// The same output for another engine (`moveoutput`): a runner's cursor belongs to one engine's pipe.
    convenience init(moving other: OutputRunner, enabled: Bool) {
        self.init(description: other.description, enabled: enabled, onFailure: other.onFailure,
                  makeSink: other.makeSink)
    }

    public init(description: OutputDescription, enabled: Bool, onFailure: (@Sendable () -> Void)? = nil,
                makeSink: @escaping SinkFactory) {
        self.description = description
        self.enabled = enabled
        self.onFailure = onFailure
        self.makeSink = makeSink
    }

}

// MARK: Output threads

extension PlaybackEngine {
    /// An output thread's body: under the lock it decides what comes next for its output — a chunk to play, a
    /// marker to pass, a pause, a close — and it lets go of the lock for every call into the sink and for reports.
    func outputLoop(_ runner: OutputRunner) {
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
            if paused, runner.cursor == pipe.baseSequence, case .songStart? = pipe.front {
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
            let index = pipe.index(of: runner.cursor)
            guard index < pipe.entries.count else {
                lock.wait()
                continue
            }
            switch pipe.entries[index] {
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
                if generation == self.generation, pipe.index(of: runner.cursor) == index {
                    runner.cursor += 1
                    popConsumed()
                    lock.broadcast()
                }
            case .songStart, .end:
                guard index == pipe.head else {
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
