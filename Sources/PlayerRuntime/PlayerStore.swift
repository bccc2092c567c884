import Logging
import PlayerCore

/// Runs the effects the reducer asks for (mixer, persistence). Injected, so tests and the server without audio
/// can use a plain implementation.
public protocol EffectRunner: Sendable {
    func run(_ effect: Effect) async
}

/// An effect runner that does nothing: the software mixer state lives in the store itself.
public struct NoEffects: EffectRunner {
    public init() {}
    public func run(_ effect: Effect) async {}
}

/// The store: serialises actions through the pure reducer, derives change sets by diffing old and new state,
/// broadcasts them to observers, and runs effects outside the reducer.
public actor PlayerStore {
    public private(set) var state: PlayerState
    private let effects: any EffectRunner
    private var observers: [Int: AsyncStream<Set<Change>>.Continuation] = [:]
    private var nextObserver = 0
    private let logger: Logger

    public init(state: PlayerState, effects: any EffectRunner = NoEffects(), logger: Logger) {
        self.state = state
        self.effects = effects
        self.logger = logger
    }

    /// Applies one action. Throws the reducer's error with the state untouched.
    public func send(_ action: Action, partition: String = PlayerState.defaultPartition) async throws(PlayerError) {
        let old = state
        var new = state
        let effects = try new.reduce(action, in: partition)
        state = new
        var changes = new.changes(since: old)
        for effect in effects {
            if case .announce(let change) = effect { changes.insert(change) }
        }
        publish(changes)
        for effect in effects {
            if case .announce = effect { continue }
            await self.effects.run(effect)
        }
    }

    /// A partition's state, or nil if it does not exist.
    public func partition(_ name: String) -> PartitionState? { state[partition: name] }

    /// Change sets as they happen, one element per action that changed something.
    public func changes() -> AsyncStream<Set<Change>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<Change>.self, bufferingPolicy: .unbounded)
        let id = nextObserver
        nextObserver += 1
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    /// Announces a change that does not come from the player state (e.g. the database or stored playlists).
    public func announce(_ changes: Set<Change>) {
        publish(changes)
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    private func publish(_ changes: Set<Change>) {
        guard !changes.isEmpty else { return }
        for continuation in observers.values { continuation.yield(changes) }
    }
}
