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

    /// An entry of a partition's output list: a live output, or the dummy an output leaves behind when it moves
    /// to another partition (MPD keeps the slot so that `outputid`s stay put).
    private struct Slot {
        var name: String
        var runner: OutputRunner?
    }

    private struct Inner {
        var engines: [String: PlaybackEngine] = [:]
        var slots: [String: [Slot]] = [:]
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

    /// Adds a configured output to the default partition.
    public func addOutput(_ description: OutputDescription, enabled: Bool, makeSink: @escaping SinkFactory) {
        let store = self.store
        let runner = OutputRunner(description: description, enabled: enabled,
                                  onFailure: { _ = try? store.send(.announce([Change(.outputs)])) }, makeSink: makeSink)
        let engine = inner.withLock { inner in
            inner.slots[PlayerState.defaultPartition, default: []].append(Slot(name: description.name, runner: runner))
            return inner.engines[PlayerState.defaultPartition]!
        }
        engine.attach(runner)
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
            inner.slots[name] = []
            if let options = inner.options[name] { engine.setOptions(options) }
        }
    }

    /// Whether the partition still owns a live output (`delpartition` refuses then).
    public func hasOutputs(partition: String) -> Bool {
        inner.withLock { $0.slots[partition]?.contains { $0.runner != nil } ?? false }
    }

    /// `delpartition` (`Effect.closePartition`, under the store's lock): the engine stops its threads.
    private func closePartition(_ name: String) {
        let engine = inner.withLock { inner in
            inner.slots[name] = nil
            return inner.engines.removeValue(forKey: name)
        }
        engine?.shutdown()
    }

    public enum MoveResult: Sendable { case moved, alreadyThere, noSuchOutput }

    /// `moveoutput`: the output leaves a dummy where it was and joins `partition` (back into its dummy's slot if
    /// it was there before), keeping its enabled state.
    public func moveOutput(named name: String, to partition: String) -> MoveResult {
        let moved: (OutputRunner, PlaybackEngine, PlaybackEngine)? = inner.withLock { inner in
            guard let destination = inner.engines[partition] else { return nil }
            if inner.slots[partition]?.contains(where: { $0.name == name && $0.runner != nil }) ?? false { return nil }
            for (source, slots) in inner.slots where source != partition {
                guard let index = slots.firstIndex(where: { $0.name == name && $0.runner != nil }),
                      let runner = slots[index].runner, let from = inner.engines[source] else { continue }
                inner.slots[source]![index].runner = nil
                if let dummy = inner.slots[partition]?.firstIndex(where: { $0.name == name }) {
                    inner.slots[partition]![dummy].runner = runner
                } else {
                    inner.slots[partition, default: []].append(Slot(name: name, runner: runner))
                }
                return (runner, from, destination)
            }
            return nil
        }
        guard let (runner, from, destination) = moved else {
            let present = inner.withLock { $0.slots[partition]?.contains { $0.name == name && $0.runner != nil } ?? false }
            return present ? .alreadyThere : .noSuchOutput
        }
        let enabled = from.isEnabled(runner)
        from.detach(runner)
        let copy = OutputRunner(moving: runner, enabled: enabled)
        inner.withLock { inner in
            if let index = inner.slots[partition]?.firstIndex(where: { $0.runner === runner }) {
                inner.slots[partition]![index].runner = copy
            }
        }
        destination.attach(copy)
        let present = inner.withLock { inner in
            inner.slots.mapValues { slots in slots.contains { $0.runner?.description.softwareMixer ?? false } }
        }
        for (name, hasMixer) in present { _ = try? store.send(.setMixerPresent(hasMixer), partition: name) }
        _ = try? store.send(.announce([Change(.outputs)]))
        return .moved
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
        default:
            break
        }
    }

    /// `elapsed`, `duration`, `bitrate`, `audio` for `status`; nil while stopped.
    public func progress(partition: String) -> PlaybackProgress? {
        engine(partition)?.currentProgress
    }

    /// The outputs of `partition`, in `outputid` order; a moved-away output shows as plugin `dummy`, disabled.
    public func outputs(partition: String) -> [OutputState] {
        let (slots, engine) = inner.withLock { ($0.slots[partition] ?? [], $0.engines[partition]) }
        return slots.enumerated().map { id, slot in
            guard let runner = slot.runner else {
                return OutputState(description: OutputDescription(id: id, name: slot.name, plugin: "dummy"),
                                   enabled: false, partition: partition)
            }
            var description = runner.description
            description.id = id
            description.attributes = runner.attributes.withLock { $0 }
            return OutputState(description: description, enabled: engine?.isEnabled(runner) ?? false,
                               partition: partition)
        }
    }

    private func runner(id: Int, partition: String) -> (OutputRunner, PlaybackEngine)? {
        inner.withLock { inner in
            guard let slots = inner.slots[partition], id < slots.count, let runner = slots[id].runner,
                  let engine = inner.engines[partition] else { return nil }
            return (runner, engine)
        }
    }

    /// `enableoutput` / `disableoutput` / `toggleoutput` (`on == nil`). False when there is no such output.
    /// As MPD's `audio_output_enable_index` and its siblings: enabling an enabled output (or disabling a disabled
    /// one) changes nothing and announces nothing; a change announces `output`, and `mixer` too when the output has
    /// a mixer (a toggle only when it turns the output off).
    public func setOutput(id: Int, enabled on: Bool?, partition: String) -> Bool {
        guard let (runner, engine) = runner(id: id, partition: partition) else { return false }
        let was = engine.isEnabled(runner)
        let enable = on ?? !was
        guard on == nil || enable != was else { return true }
        engine.setEnabled(runner, enable)
        var changes: Set<Change> = [Change(.outputs)]
        if runner.description.softwareMixer || runner.description.hardwareMixer, on != nil || !enable {
            changes.insert(Change(.mixer, partition: partition))
        }
        _ = try? store.send(.announce(changes))
        return true
    }

    public enum AttributeResult: Sendable { case done, noSuchOutput, unsupported }

    /// `outputset`: only attributes the output declares (MPD's `OutputAttributes`) can change.
    public func setAttribute(output id: Int, name: String, value: String, partition: String) -> AttributeResult {
        guard let (runner, _) = runner(id: id, partition: partition) else { return .noSuchOutput }
        let done = runner.attributes.withLock { attributes in
            guard let slot = attributes.firstIndex(where: { $0.name == name }) else { return false }
            attributes[slot].value = value
            return true
        }
        guard done else { return .unsupported }
        _ = try? store.send(.announce([Change(.outputs)]))
        return .done
    }

    public func shutdown() {
        let engines = inner.withLock { Array($0.engines.values) }
        for engine in engines { engine.shutdown() }
    }
}
