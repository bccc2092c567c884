import Logging
import PlayerCore
import Synchronization

/// Runs the effects that may block (the state file, a hardware mixer; `Effect.execution` says which). They run in
/// the order they were produced, on the store's effect task, never inside the reducer or on a protocol thread.
public protocol EffectRunner: Sendable {
    func run(_ effect: Effect) async
}

/// An effect runner that does nothing: the software mixer state lives in the store itself.
public struct NoEffects: EffectRunner {
    public init() {}
    public func run(_ effect: Effect) async {}
}

/// The store: serialises actions through the pure reducer, derives change sets by diffing old and new state,
/// hands them to observers, and queues effects for `runEffects()`.
///
/// Actions are serialised by a mutex rather than an actor: the reducer is synchronous and takes microseconds,
/// so a protocol command on an event loop applies its action in place and answers without a thread hop (the
/// `status` round trip is the latency every client feels). Nothing slow ever runs under the lock: effects are
/// queued, and observers only enqueue.
public final class PlayerStore: Sendable {
    public typealias Observer = @Sendable (Set<Change>) -> Void
    /// Receives the playback effects (start, queue next, pause, stop, volume) synchronously, in order, under the
    /// store's lock: the engine's commands only set state and wake its threads, and the order of starts and
    /// stops must be the order of the actions.
    public typealias PlaybackHandler = @Sendable (Effect) -> Void
    /// Receives a partition's options whenever they change, synchronously under the store's lock (as the
    /// playback effects): the engines keep their own copy instead of asking the store while they decode.
    public typealias OptionsHandler = @Sendable (_ partition: String, PlaybackOptions) -> Void

    private struct Inner {
        var state: PlayerState
        var observers: [Int: Observer] = [:]
        var nextObserver = 0
        var playback: PlaybackHandler?
        var options: OptionsHandler?
    }

    private let inner: Mutex<Inner>
    private let effectQueue: AsyncStream<Effect>.Continuation
    private let effectStream: AsyncStream<Effect>
    private let effects: any EffectRunner
    private let logger: Logger

    public init(state: PlayerState, effects: any EffectRunner = NoEffects(), logger: Logger) {
        inner = Mutex(Inner(state: state))
        (effectStream, effectQueue) = AsyncStream.makeStream(of: Effect.self, bufferingPolicy: .unbounded)
        self.effects = effects
        self.logger = logger
    }

    /// A snapshot of the whole state (copy-on-write: cheap).
    public var state: PlayerState { inner.withLock { $0.state } }

    /// A partition's state, or nil if it does not exist.
    public func partition(_ name: String) -> PartitionState? { inner.withLock { $0.state[partition: name] } }

    /// Reads a partition's state in place under the lock (false if the partition does not exist): `status`, polled by
    /// every client. The state is handed by address: handed as a value (`borrowing` or not) the compiler copied it,
    /// a retain and a release of each of its parts (~430 instructions of a `status` round trip, callgrind), and
    /// `partition(_:)` copied it twice. `body` must be quick, must not use the store and must not keep the pointer.
    public func read(partition name: String, _ body: (UnsafePointer<PartitionState>) -> Void) -> Bool {
        inner.withLock { inner in
            guard let index = inner.state.partitions.firstIndex(where: { $0.name == name }) else { return false }
            inner.state.partitions.withUnsafeBufferPointer { body($0.baseAddress! + index) }
            return true
        }
    }

    /// What `send` tells its caller.
    public struct Sent: Sendable, Equatable {
        /// Every effect the reducer asked for, in order (each ran or was queued as `Effect.execution` says).
        public var effects: [Effect]
        /// The ids of the songs an `add`/`load` appended, in order (`addid` prints them); fewer than the songs
        /// when the queue filled up.
        public var addedIDs: [Int] {
            for case .added(let ids) in effects { return ids }
            return []
        }
    }

    /// Applies one action. Throws the reducer's error; what the action did before it failed stays, as in MPD.
    /// Observers are called before this returns, in the order actions were applied; each effect runs where
    /// `Effect.execution` says.
    @discardableResult
    public func send(_ action: Action, partition: String = PlayerState.defaultPartition) throws(PlayerError) -> Sent {
        let result: Result<[Effect], PlayerError> = inner.withLock { inner in
            // The action edits the state in place: taken out of the store (the queues' storage is then not shared,
            // so an edit does not copy them), compared afterwards with the state as it was without its songs.
            let old = inner.state.withoutQueueItems()
            var new = inner.state.take()
            let effects: [Effect]
            do throws(PlayerError) {
                effects = try new.reduce(action, in: partition)
            } catch {
                // A failing action keeps what it did before it failed, as in MPD, which has no transactions:
                // `play 99` clears the player's error before it finds the position bad (`playlist::PlayPosition`).
                // Nothing is announced, as MPD announces nothing for it either.
                inner.state = new
                return .failure(error)
            }
            var changes = new.changes(since: old)
            inner.state = new
            for effect in effects {
                if case .announce(let change) = effect { changes.insert(change) }
            }
            if let playback = inner.playback {
                for effect in effects where effect.execution.underLock { playback(effect) }
            }
            // After the playback effects: a decoder that reads the new options also finds the song queued by the
            // same action, as when it read them from the store's state once this lock was released.
            if let handler = inner.options {
                for partition in new.partitions where old[partition: partition.name]?.options != partition.options {
                    handler(partition.name, partition.options)
                }
            }
            if !changes.isEmpty {
                for observer in inner.observers.values { observer(changes) }
            }
            return .success(effects)
        }
        let effects = try result.get()
        for effect in effects where effect.execution.onEffectTask { effectQueue.yield(effect) }
        return Sent(effects: effects)
    }

    /// Connects the playback engine. Effects before this are not replayed: connect before the first action.
    public func setPlaybackHandler(_ handler: @escaping PlaybackHandler) {
        inner.withLock { $0.playback = handler }
    }

    /// Connects the engines' options: `handler` gets every partition's options at once, then a partition's options
    /// whenever an action changes them (a new partition's when it is made), in the order of the actions.
    public func setOptionsHandler(_ handler: @escaping OptionsHandler) {
        inner.withLock { inner in
            inner.options = handler
            for partition in inner.state.partitions { handler(partition.name, partition.options) }
        }
    }

    /// Registers a synchronous observer of change sets. It runs under the store's lock, so it must only hand the
    /// changes on (enqueue), never call back into the store.
    @discardableResult
    public func observe(_ observer: @escaping Observer) -> Int {
        inner.withLock { inner in
            let id = inner.nextObserver
            inner.nextObserver += 1
            inner.observers[id] = observer
            return id
        }
    }

    public func removeObserver(_ id: Int) {
        _ = inner.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Change sets as an async sequence, for consumers that are tasks.
    public func changes() -> AsyncStream<Set<Change>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<Change>.self, bufferingPolicy: .unbounded)
        let id = observe { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        return stream
    }

    /// Runs queued effects in order until cancelled. The service lifecycle runs this once.
    public func runEffects() async {
        for await effect in effectStream {
            await effects.run(effect)
        }
    }

    /// Stops `runEffects()` after the effects already queued.
    public func finishEffects() { effectQueue.finish() }
}

extension Effect {
    /// Where the store runs an effect.
    public enum Execution: Sendable {
        /// Merged into the change set the observers get from the same `send`.
        case announcement
        /// The playback handler (`AudioPlayer`), synchronously, under the store's lock: the engine's commands only
        /// set state and wake its threads, and the order of starts, stops and partitions must be the order of the
        /// actions.
        case underLock
        /// The effect runner, on the store's effect task, in order, after the lock is released: work that may
        /// block (the state file, a hardware mixer).
        case effectTask
        /// Both, in that order: the engine's software volume at once, a hardware mixer (which may block) after.
        case underLockThenEffectTask
        /// Not work but an answer for the caller of `send` (`Sent`).
        case result

        var underLock: Bool { self == .underLock || self == .underLockThenEffectTask }
        var onEffectTask: Bool { self == .effectTask || self == .underLockThenEffectTask }
    }

    /// The one table of where each effect runs.
    public var execution: Execution {
        switch self {
        case .announce: .announcement
        case .startPlayback, .queueNext, .pausePlayback, .stopPlayback, .openPartition, .closePartition: .underLock
        case .enableOutput, .moveOutput: .underLock
        case .applyVolume: .underLockThenEffectTask
        case .persistState: .effectTask
        case .added: .result
        }
    }
}
