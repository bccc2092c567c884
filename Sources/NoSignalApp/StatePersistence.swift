import Library
import Logging
import MPDServer
import PlayerCore
import PlayerRuntime
import ServerPorts

/// Runs the store's slow effects off the protocol threads: a (debounced) state-file write for `persistState`, and
/// the hardware mixers' knobs for `applyVolume` (the software mixer is applied by the engine itself).
struct StatePersistenceEffects: EffectRunner {
    let saver: StateFileSaver?
    let mixers: [any HardwareMixer]
    let logger: Logger

    func run(_ effect: Effect) async {
        switch effect {
        case .persistState:
            saver?.requestSave()
        case .applyVolume(_, let volume):
            for mixer in mixers {
                do { try mixer.setVolume(volume) } catch { logger.error("cannot set the mixer: \(error.message)") }
            }
        default:
            break
        }
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
            saved.queue.entries[index].song = found[0].lookedUpByURI
        }
        _ = try? store.send(.restore(saved))
    }
}
