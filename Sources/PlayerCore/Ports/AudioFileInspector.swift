/// What the library scanner learns from one audio file. Filled in by the decoder edge (libavformat), consumed by
/// the `Library` scanner and by `readcomments`/`readpicture`.
public struct InspectedFile: Sendable, Equatable {
    /// Tags with MPD's canonical names (`Artist`, `AlbumArtist`, `MUSICBRAINZ_TRACKID`, …), in the file's order;
    /// a multi-valued tag appears once per value.
    public var tags: [Song.Tag]
    /// Seconds, when known.
    public var duration: Double?
    /// `samplerate:bits:channels`, e.g. `44100:16:2` or `48000:f:2`.
    public var audioFormat: String?
    /// Every metadata pair as the file stores it (container, then audio stream), for `readcomments`.
    public var comments: [(key: String, value: String)]
    /// When `tags` are the file's own (its format's reader found some), the tags of the generic scan (an APEv2 or
    /// ID3 tag), which MPD takes instead when `metadata_to_use` leaves out every one of them; nil otherwise.
    public var genericTags: [Song.Tag]?
    /// The first embedded picture, when asked for.
    public var picture: Picture?
    /// A pair the database scan sees is named `CUESHEET` in any case (`FullTagHandler::OnPair`): the file is also
    /// a playlist (`Tag::has_playlist`).
    public var hasPlaylist = false

    public struct Picture: Sendable, Equatable {
        public var data: [UInt8]
        public var mimeType: String?
        public init(data: [UInt8], mimeType: String?) {
            self.data = data
            self.mimeType = mimeType
        }
    }

    public init(tags: [Song.Tag] = [], duration: Double? = nil, audioFormat: String? = nil,
                comments: [(key: String, value: String)] = [], picture: Picture? = nil) {
        self.tags = tags
        self.duration = duration
        self.audioFormat = audioFormat
        self.comments = comments
        self.picture = picture
    }

    public static func == (lhs: InspectedFile, rhs: InspectedFile) -> Bool {
        lhs.tags == rhs.tags && lhs.genericTags == rhs.genericTags && lhs.duration == rhs.duration
            && lhs.audioFormat == rhs.audioFormat && lhs.picture == rhs.picture && lhs.hasPlaylist == rhs.hasPlaylist
            && lhs.comments.elementsEqual(rhs.comments, by: { $0 == $1 })
    }
}

/// Reads tags and stream facts from an audio file. Blocking (file I/O): call it off any event loop.
public protocol AudioFileInspector: Sendable {
    /// The file suffixes (lowercase, no dot) the scanner should read, as `decoders` lists them.
    var suffixes: Set<String> { get }
    /// Throws when the file cannot be opened or holds no audio stream.
    func inspect(path: String, includePicture: Bool) throws -> InspectedFile
}
