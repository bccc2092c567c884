/// A song as the core sees it: a URI (a path relative to the music directory, `netease://song/<id>`, or a URL)
/// and its tags. Tag names are MPD's canonical spellings; the core does not know the protocol, so it keeps them
/// as strings and the server maps them to its tag table.
public struct Song: Equatable, Sendable {
    public struct Tag: Equatable, Sendable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var uri: String
    /// In the song's stored order; a multi-valued tag appears once per value.
    public var tags: [Tag]
    /// Seconds, when known.
    public var duration: Double?
    /// UNIX seconds of the file's modification time, when known.
    public var lastModified: Int64?
    /// UNIX seconds when the song entered the database (MPD 0.24 `Added`).
    public var added: Int64?
    /// `samplerate:bits:channels`, when known.
    public var audioFormat: String?

    public init(uri: String, tags: [Tag] = [], duration: Double? = nil, lastModified: Int64? = nil,
                added: Int64? = nil, audioFormat: String? = nil) {
        self.uri = uri
        self.tags = tags
        self.duration = duration
        self.lastModified = lastModified
        self.added = added
        self.audioFormat = audioFormat
    }
}
