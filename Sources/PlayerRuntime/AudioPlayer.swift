import Logging
import PlayerCore
import Synchronization

/// The audio side of the server: one `PlaybackEngine` per partition, and the configured outputs, each playing in
/// the engine of the partition the store's state puts it in. It is the store's playback handler: what the state
/// says of partitions and outputs (`Effect.openPartition`, `.enableOutput`, `.moveOutput`, …) it makes so.
public final class AudioPlayer: Sendable {
    private struct Inner {
        var engines: [String: PlaybackEngine] = [:]
        /// Each output by name, with the partition whose engine plays it.
        var outputs: [String: (runner: OutputRunner, partition: String)] = [:]
        /// Each partition's options as the store last pushed them: a partition's engine is made after the store
        /// made the partition (and pushed its options). Kept after the partition is deleted: the store pushes a
        /// partition made again under that name before its engine is.
        var options: [String: PlaybackOptions] = [:]
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
                           report: { action in _ = try? store.send(action, partition: partition) }, logger: logger)
        }
        let engine = makeEngine(PlayerState.defaultPartition)
        if let volume = store.partition(PlayerState.defaultPartition)?.volume { engine.setVolume(volume) }
        inner.withLock { $0.engines[PlayerState.defaultPartition] = engine }
        store.setPlaybackHandler { [weak self] effect in self?.handle(effect) }
        // Pushes the options of every partition now (the default engine's), then each change.
        store.setOptionsHandler { [weak self] partition, options in self?.setOptions(options, partition: partition) }
    }

    /// The store's options handler (called under the store's lock). The engine gets them under this player's lock,
    /// so that `addPartition` cannot give a new engine options older than the last ones pushed; the engine's
    /// lock is taken inside both, which is the lock order everywhere (store, player, engine).
    private func setOptions(_ options: PlaybackOptions, partition: String) {
        inner.withLock { inner in
            inner.options[partition] = options
            inner.engines[partition]?.setOptions(options)
        }
    }

    /// Adds a configured output to the default partition (`Action.addOutput`). A device that fails disables it
    /// (`Action.outputFailed`).
    public func addOutput(_ description: OutputDescription, enabled: Bool, makeSink: @escaping SinkFactory) {
        let store = self.store
        let name = description.name
        let runner = OutputRunner(description: description, enabled: enabled,
                                  onFailure: { _ = try? store.send(.outputFailed(name: name)) }, makeSink: makeSink)
        let engine = inner.withLock { inner in
            inner.outputs[name] = (runner, PlayerState.defaultPartition)
            return inner.engines[PlayerState.defaultPartition]!
        }
        engine.attach(runner)
        _ = try? store.send(.addOutput(Output(
            name: name, plugin: description.plugin, enabled: enabled, softwareMixer: description.softwareMixer,
            hasMixer: description.hardwareMixer,
            attributes: description.attributes.map { Output.Attribute($0.name, $0.value) })))
    }

    private func engine(_ partition: String) -> PlaybackEngine? {
        inner.withLock { $0.engines[partition] }
    }

    // MARK: Partitions

    /// `newpartition` (`Effect.openPartition`, under the store's lock): an engine and no outputs.
    private func openPartition(_ name: String) {
        let engine = makeEngine(name)
        inner.withLock { inner in
            inner.engines[name] = engine
            if let options = inner.options[name] { engine.setOptions(options) }
        }
    }

    /// `delpartition` (`Effect.closePartition`, under the store's lock): the engine stops its threads.
    private func closePartition(_ name: String) {
        let engine = inner.withLock { $0.engines.removeValue(forKey: name) }
        engine?.shutdown()
    }

    // MARK: Outputs

    /// `Effect.enableOutput` (under the store's lock).
    private func enableOutput(_ name: String, in partition: String, _ on: Bool) {
        let found = inner.withLock { inner in inner.outputs[name].map { ($0.runner, inner.engines[partition]) } }
        guard let (runner, engine) = found, let engine else { return }
        engine.setEnabled(runner, on)
    }

    /// `Effect.moveOutput` (under the store's lock): the output's thread leaves one engine and a copy of it, as
    /// enabled as it was, starts in the other's.
    private func moveOutput(_ name: String, from: String, to: String) {
        let found = inner.withLock { inner in
            inner.outputs[name].map { ($0.runner, inner.engines[from], inner.engines[to]) }
        }
        guard let (runner, source, destination) = found, let source, let destination else { return }
        let enabled = source.isEnabled(runner)
        source.detach(runner)
        let copy = OutputRunner(moving: runner, enabled: enabled)
        inner.withLock { $0.outputs[name] = (copy, to) }
        destination.attach(copy)
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
        case .openPartition(let name):
            openPartition(name)
        case .closePartition(let name):
            closePartition(name)
        case .enableOutput(let partition, let name, let on):
            enableOutput(name, in: partition, on)
        case .moveOutput(let name, let from, let to):
            moveOutput(name, from: from, to: to)
        default:
            break
        }
    }

    /// `elapsed`, `duration`, `bitrate`, `audio` for `status`; nil while stopped.
    public func progress(partition: String) -> PlaybackProgress? {
        engine(partition)?.currentProgress
    }

    /// `stats`' `playtime:`: the seconds a partition's player has played (0 for a partition without an engine).
    public func totalPlayTime(partition: String) -> Double {
        engine(partition)?.totalPlayTime ?? 0
    }

    public func shutdown() {
        let engines = inner.withLock { Array($0.engines.values) }
        for engine in engines { engine.shutdown() }
    }
}
