import PlayerCore

/// One entry of a playlist as MPD's playlist plugins give it (`SongEnumerator::NextSong`), its URI translated as
/// `playlist_check_translate_song` does before it loads the song: joined to the playlist's folder, dot segments
/// squashed. `song` holds what the playlist says of it (tags, duration); `range` a CUE track's start and end.
public struct PlaylistEntry: Equatable, Sendable {
    /// Where `SongLoader::LoadSong` finds the song (`LocateUri`).
    public enum Location: Equatable, Sendable {
        /// A song of the database (a relative URI, or an absolute path inside the music directory): its URI.
        case database(String)
        /// A URL (`scheme://`): it loads when the server plays its scheme.
        case url
        /// Nothing loads it (a path outside the music directory, a malformed `file://`): printed as it is.
        case unavailable
    }

    public var song: Song
    public var range: Queue.ClosedRangeSeconds?
    public var location: Location

    public init(song: Song, range: Queue.ClosedRangeSeconds? = nil, location: Location) {
        self.song = song
        self.range = range
        self.location = location
    }
}
