import Library
import MPDServer
import PlayerCore
import PlayerRuntime

/// Runs the store's `persistState` effects by scheduling a (debounced) state-file write.
struct StatePersistenceEffects: EffectRunner {
    let saver: StateFileSaver?

    func run(_ effect: Effect) async {
        if case .persistState = effect { saver?.requestSave() }
    }
}

extension StateFileSaver {
    /// Start-up: reads the state file and restores volume, options and the queue into the default partition.
    /// Songs from the music directory get their tags from the database; unknown ones stay as bare URIs.
    func restore(into store: PlayerStore, database: (any MusicDatabase)?) async {
        guard var saved = load() else { return }
        for index in saved.queue.entries.indices {
            let song = saved.queue.entries[index].song
            guard !song.isRemote, let database,
                  let found = try? await database.songsForQueue(uri: song.uri), found.count == 1,
                  found[0].uri == song.uri
            else { continue }
            saved.queue.entries[index].song = found[0]
        }
        try? store.send(.restore(saved))
    }
}
