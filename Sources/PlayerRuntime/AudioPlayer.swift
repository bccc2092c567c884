import Logging
import PlayerCore
import Synchronization

/// The audio side of the server: one `PlaybackEngine` per partition and the configured outputs, each assigned to
/// a partition. It is the store's playback handler, and what the `outputs` commands and `status` ask.
public final class AudioPlayer: Sendable {
    public struct OutputState: Equatable, Sendable {
        public var description: OutputDescription
        public var enabled: Bool
        public var partition: String
    }

    private struct Output {
        var runner: OutputRunner
        var partition: String
    }

    private struct Inner {
        var engines: [String: PlaybackEngine] = [:]
        var outputs: [Output] = []
    }

    private let inner = Mutex(Inner())
    private let store: PlayerStore
    private let makeEngine: @Sendable (String) -> PlaybackEngine
    private let logger: Logger

    public init(store: PlayerStore, decoders: any AudioDecoderFactory, converters: any PCMConverterFactory,
                settings: PlaybackEngine.Settings = .init(), locate: @escaping @Sendable (Song) -> String,
                logger: Logger) {
        self.store = store
        self.logger = logger
        makeEngine = { partition in
            PlaybackEngine(decoders: decoders, converters: converters, settings: settings, locate: locate,
                           options: { store.partition(partition)?.options ?? PlaybackOptions() },
                           report: { action in _ = try? store.send(action, partition: partition) }, logger: logger)
        }
        let engine = makeEngine(PlayerState.defaultPartition)
        if let volume = store.partition(PlayerState.defaultPartition)?.volume { engine.setVolume(volume) }
        inner.withLock { $0.engines[PlayerState.defaultPartition] = engine }
        store.setPlaybackHandler { [weak self] effect in self?.handle(effect) }
    }

    /// Adds a configured output to the default partition.
    public func addOutput(_ description: OutputDescription, enabled: Bool, makeSink: @escaping SinkFactory) {
        let store = self.store
        let runner = OutputRunner(description: description, enabled: enabled,
                                  onFailure: { store.announce([Change(.outputs)]) }, makeSink: makeSink)
        let engine = inner.withLock { inner in
            inner.outputs.append(Output(runner: runner, partition: PlayerState.defaultPartition))
            return inner.engines[PlayerState.defaultPartition]!
        }
        engine.attach(runner)
    }

    private func engine(_ partition: String) -> PlaybackEngine? {
        inner.withLock { $0.engines[partition] }
    }

    /// The store's playback handler (called under the store's lock; the engine only records and wakes threads).
    func handle(_ effect: Effect) {
        switch effect {
        case .startPlayback(let partition, let start):
            engine(partition)?.start(start)
        case .queueNext(let partition, let token, let item, let borderPause):
            engine(partition)?.queueNext(token: token, item, borderPause: borderPause)
        case .pausePlayback(let partition, let paused):
            engine(partition)?.setPaused(paused)
        case .stopPlayback(let partition):
            engine(partition)?.stop()
        case .applyVolume(let partition, let volume):
            engine(partition)?.setVolume(volume)
        default:
            break
        }
    }

    /// `elapsed`, `duration`, `bitrate`, `audio` for `status`; nil while stopped.
    public func progress(partition: String) -> PlaybackProgress? {
        engine(partition)?.currentProgress
    }

    /// Every output, in `outputid` order.
    public var outputs: [OutputState] {
        let (outputs, engines) = inner.withLock { ($0.outputs, $0.engines) }
        return outputs.map { output in
            var description = output.runner.description
            description.attributes = output.runner.attributes.withLock { $0 }
            return OutputState(description: description,
                        enabled: engines[output.partition]?.isEnabled(output.runner) ?? false,
                        partition: output.partition)
        }
    }

    /// `enableoutput` / `disableoutput` / `toggleoutput` (`on == nil`). False when there is no such output.
    public func setOutput(id: Int, enabled on: Bool?) -> Bool {
        let found: (OutputRunner, PlaybackEngine)? = inner.withLock { inner in
            guard let output = inner.outputs.first(where: { $0.runner.description.id == id }),
                  let engine = inner.engines[output.partition] else { return nil }
            return (output.runner, engine)
        }
        guard let (runner, engine) = found else { return false }
        let enable = on ?? !engine.isEnabled(runner)
        engine.setEnabled(runner, enable)
        store.announce([Change(.outputs)])
        return true
    }

    public enum AttributeResult: Sendable { case done, noSuchOutput, unsupported }

    /// `outputset`: only attributes the output declares (MPD's `OutputAttributes`) can change.
    public func setAttribute(output id: Int, name: String, value: String) -> AttributeResult {
        let result: AttributeResult = inner.withLock { inner in
            guard let index = inner.outputs.firstIndex(where: { $0.runner.description.id == id }) else {
                return .noSuchOutput
            }
            let runner = inner.outputs[index].runner
            guard runner.attributes.withLock({ attributes in
                guard let slot = attributes.firstIndex(where: { $0.name == name }) else { return false }
                attributes[slot].value = value
                return true
            }) else { return .unsupported }
            return .done
        }
        if case .done = result { store.announce([Change(.outputs)]) }
        return result
    }

    public func shutdown() {
        let engines = inner.withLock { Array($0.engines.values) }
        for engine in engines { engine.shutdown() }
    }
}
