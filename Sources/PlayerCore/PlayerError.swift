/// Domain errors of the core. The server maps each to MPD's ACK code and text in one place.
public enum PlayerError: Error, Equatable, Sendable {
    /// `volume` without a mixer (ACK 52).
    case noMixer
    /// A runtime failure MPD reports as ACK 5 with its text, e.g. `setvol` without a mixer ("No mixer").
    case failed(String)
    case playlistTooLarge
    case noSuchSong
    case badSongIndex
    case notPlaying
    case noSuchPartition(String)
    case partitionExists(String)
    /// MPD's `PlaylistResult::DENIED` (ACK 4), e.g. "Cannot edit the current song".
    case denied(String)
    /// MPD's `PlaylistResult::BAD_RANGE` with its own text (ACK 2), e.g. "Invalid start offset".
    case badRange(String)
    /// Stored playlists: ACK 50 "No such playlist".
    case noSuchPlaylist
    /// ACK 56 with MPD's text, which differs between `save` ("Playlist already exists") and `rename`
    /// ("Playlist exists already").
    case playlistExists(String)
    /// ACK 2 "Bad playlist name": empty, or containing `/` or LF, or not UTF-8 by MPD's check (MPD 0.24.11).
    case badPlaylistName
    /// ACK 50 with MPD's text, which differs between the output commands ("No such audio output") and
    /// `moveoutput` ("No such output").
    case noSuchOutput(String)
    /// ACK 2 "Unsupported attribute": `outputset` of an attribute the output does not declare.
    case unsupportedAttribute
    /// ACK 2 with MPD's complaint about an attribute: "Illegal attribute name", ALSA's "Bad 'dop' value".
    case badAttributeValue(String)
}
