import Logging
import PlayerCore
import PlayerRuntime
import Testing

actor RecordingEffects: EffectRunner {
    var seen: [Effect] = []
    func run(_ effect: Effect) async { seen.append(effect) }
}

@Suite struct PlayerStoreTests {
    @Test func publishesChangeSetsAndRunsEffects() async throws {
        let effects = RecordingEffects()
        let store = PlayerStore(state: PlayerState(volume: 100), effects: effects, logger: Logger(label: "test"))
        let changes = await store.changes()
        var iterator = changes.makeAsyncIterator()
        try await store.send(.setRepeat(true))
        #expect(await iterator.next() == [Change(.options, partition: "default")])
        try await store.send(.setVolume(30))
        #expect(await iterator.next() == [Change(.mixer, partition: "default")])
        #expect(await effects.seen == [.persistState, .applyVolume(partition: "default", volume: 30), .persistState])
    }

    @Test func errorsLeaveStateUntouched() async throws {
        let store = PlayerStore(state: PlayerState(volume: nil), logger: Logger(label: "test"))
        let before = await store.state
        await #expect(throws: PlayerError.noMixer) { try await store.send(.setVolume(3)) }
        #expect(await store.state == before)
    }
}
