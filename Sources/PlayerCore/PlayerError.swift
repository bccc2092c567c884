/// Domain errors of the core. The server maps each to MPD's ACK code and text in one place.
public enum PlayerError: Error, Equatable, Sendable {
    case noMixer
    case playlistTooLarge
    case noSuchSong
    case badSongIndex
    case notPlaying
    case noSuchPartition(String)
    case partitionExists(String)
}
