import MPDProtocol
import PlayerCore
import ServerPorts

extension ACKError {
    /// The one function that turns any error a handler throws into MPD's ACK (`CommandError.cxx::ToAck`): the
    /// protocol's own `ACKError`s, the core's `PlayerError`s and the edges' `PortError`s. Public so that tests of an
    /// edge can say what a client would read.
    public static func from(_ error: any Error) -> ACKError {
        switch error {
        case let ack as ACKError:
            return ack
        case let player as PlayerError:
            switch player {
            case .noMixer: return ACKError(.system, "No mixer")
            case .failed(let text): return ACKError(.unknown, text)
            case .playlistTooLarge: return ACKError(.playlistMax, "Playlist is too large")
            case .noSuchSong: return ACKError(.noExist, "No such song")
            case .badSongIndex: return ACKError(.arg, "Bad song index")
            case .notPlaying: return ACKError(.playerSync, "Not playing")
            case .noSuchPartition: return ACKError(.noExist, "No such partition")
            case .partitionExists: return ACKError(.exist, "name already exists")
            case .denied(let message): return ACKError(.permission, message)
            case .badRange(let message): return ACKError(.arg, message)
            case .noSuchPlaylist: return ACKError(.noExist, "No such playlist")
            case .playlistExists(let message): return ACKError(.exist, message)
            case .badPlaylistName: return ACKError(.arg, "Bad playlist name")
            case .noSuchOutput(let message): return ACKError(.noExist, message)
            case .unsupportedAttribute: return ACKError(.arg, "Unsupported attribute")
            case .badAttributeValue(let message): return ACKError(.arg, message)
            }
        case let port as PortError:
            switch port {
            case .notFound(let message): return ACKError(.noExist, message)
            case .disabled: return ACKError(.noExist, "No database")
            case .invalid(let message): return ACKError(.arg, message)
            case .busy(let message): return ACKError(.updateAlready, message)
            case .denied(let message): return ACKError(.permission, message)
            case .failed(let message): return ACKError(.system, message)
            case .unknown(let message): return ACKError(.unknown, message)
            }
        default:
            return ACKError(.unknown, String(describing: error))
        }
    }
}
