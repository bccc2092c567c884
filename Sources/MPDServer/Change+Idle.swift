import MPDProtocol
import PlayerCore

extension Change {
    /// The one table from state changes to MPD idle subsystems (`Partition::OnQueueModified` and friends).
    public var idleSubsystems: IdleSubsystems {
        switch kind {
        case .queue: .playlist
        case .player: .player
        case .options: .options
        case .mixer: .mixer
        case .outputs: .output
        case .partitions: .partition
        case .storedPlaylists: .storedPlaylist
        case .database: .database
        case .stickers: .sticker
        case .update: .update
        }
    }
}
