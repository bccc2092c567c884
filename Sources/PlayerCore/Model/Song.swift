/// A song as the core sees it: a URI (a path relative to the music directory, `netease://song/<id>`, or a URL)
/// and its tags. Tag names are MPD's canonical spellings; the core does not know the protocol, so it keeps them
/// as strings and the server maps them to its tag table.
public struct Song: Equatable, Sendable {
    public struct Tag: Equatable, Sendable {
        public var name: String
        public var value: String
        /// The value as MPD keeps it (`FixTagString`, `src/tag/FixString.cxx`): a control character (below U+0020:
        /// a tab, a newline, an escape) becomes a space. This also keeps every value one line of the protocol.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = Self.printable(value)
        }

        /// A value already kept as `init(_:_:)` keeps it: read back from the database, which stores only such values.
        public init(name: String, printable value: String) {
            self.name = name
            self.value = value
        }

        /// `value` with each control character (U+0000…U+001F) replaced by a space.
        public static func printable(_ value: String) -> String {
            guard value.utf8.contains(where: { $0 < 0x20 }) else { return value }
            return String(decoding: value.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
        }

        /// Text from a file's bytes as MPD reads it (`fix_utf8`): a byte that cannot start a UTF-8 sequence, or one
        /// whose sequence is cut short or broken, becomes `?`; decoding goes on from the byte after it.
        /// Inlinable: the tag readers get it specialised for their bytes.
        @inlinable
        public static func text(_ bytes: some Collection<UInt8>) -> String {
            if let valid = String(validating: bytes, as: UTF8.self) { return valid }
            var repaired = Array(bytes)
            var index = 0
            while index < repaired.count {
                let lead = repaired[index]
                let length = switch lead {
                case ..<0x80: 1
                case 0xC0..<0xE0: 2
                case 0xE0..<0xF0: 3
                case 0xF0..<0xF8: 4
                case 0xF8..<0xFC: 5
                case 0xFC..<0xFE: 6
                default: 0
                }
                let end = index + length
                if length == 0 || end > repaired.count
                    || !repaired[(index + 1)..<end].allSatisfy({ $0 & 0xC0 == 0x80 }) {
                    repaired[index] = UInt8(ascii: "?")
                    index += 1
                } else {
                    index = end
                }
            }
            return String(decoding: repaired, as: UTF8.self)
        }
    }

    public var uri: String
    /// The tags as they are kept (`PackedTags`): what the database loads and the server prints without decoding.
    public var packedTags: PackedTags
    /// In the song's stored order; a multi-valued tag appears once per value. Decoded from (and encoded into)
    /// `packedTags` on each use.
    public var tags: [Tag] {
        get { packedTags.tags }
        set { packedTags = PackedTags(newValue) }
    }
    /// Seconds, when known.
    public var duration: Double?
    /// UNIX seconds of the file's modification time, when known.
    public var lastModified: Int64?
    /// UNIX seconds when the song entered the database (MPD 0.24 `Added`).
    public var added: Int64?
    /// `samplerate:bits:channels`, when known.
    public var audioFormat: String?
    /// The file holds a playlist of its own (`Tag::has_playlist`: an embedded cue sheet): database listings print
    /// `playlist: URI` after it.
    public var hasPlaylist = false

    public init(uri: String, tags: [Tag] = [], duration: Double? = nil, lastModified: Int64? = nil,
                added: Int64? = nil, audioFormat: String? = nil) {
        self.init(uri: uri, packedTags: PackedTags(tags), duration: duration, lastModified: lastModified,
                  added: added, audioFormat: audioFormat)
    }

    public init(uri: String, packedTags: PackedTags, duration: Double? = nil, lastModified: Int64? = nil,
                added: Int64? = nil, audioFormat: String? = nil, hasPlaylist: Bool = false) {
        self.hasPlaylist = hasPlaylist
        self.uri = uri
        self.packedTags = packedTags
        self.duration = duration
        self.lastModified = lastModified
        self.added = added
        self.audioFormat = audioFormat
    }
}

extension Song {
    /// The song as MPD 0.24 holds one it looked up by its URI (`Database::GetSong`: the copy it hands out,
    /// `LightSong`'s copy constructor, keeps no added time), whose `Added` is then the file's modification time
    /// (`DetachedSong::GetAdded`). `addid`, stored playlists, playlist files and the queue restored from the state
    /// file take songs this way; listings, `find`, `add` and `findadd` walk the database and keep its added time.
    public var lookedUpByURI: Song {
        var song = self
        song.added = lastModified
        return song
    }
}
