#if canImport(Glibc)
import Glibc
#endif

/// The 35 tag types of MPD 0.24 (`src/tag/Type.hxx`), in MPD's order, which is also the order of
/// `tagtypes` output and of tag lines in song blocks.
public enum TagName: Int, CaseIterable, Sendable, Hashable, Comparable {
    case artist, artistSort, album, albumSort, albumArtist, albumArtistSort, title, titleSort, track, name
    case genre, mood, date, originalDate, composer, composerSort, performer, conductor, work, movement
    case movementNumber, showMovement, ensemble, location, grouping, comment, disc, label
    case musicBrainzArtistID, musicBrainzAlbumID, musicBrainzAlbumArtistID, musicBrainzTrackID
    case musicBrainzReleaseTrackID, musicBrainzWorkID, musicBrainzReleaseGroupID

    /// The canonical spelling. libmpdclient matches these case-sensitively, so output must use them.
    public var mpdName: String { Self.names[rawValue] }

    private static let names = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "TitleSort",
        "Track", "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer",
        "Conductor", "Work", "Movement", "MovementNumber", "ShowMovement", "Ensemble", "Location", "Grouping",
        "Comment", "Disc", "Label", "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID",
        "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID", "MUSICBRAINZ_RELEASEGROUPID",
    ]

    private static let byLowercasedName: [String: TagName] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.mpdName.lowercased(), $0) })

    /// The tags by the length and first byte of their canonical name.
    private static let candidates: [[TagName]] = {
        var table = [[TagName]](repeating: [], count: 32 * 128)
        for tag in allCases {
            let utf8 = tag.mpdName.utf8
            table[utf8.count * 128 + Int(utf8.first!)].append(tag)
        }
        return table
    }()

    /// `init(parsing:)` for a `String`: the canonical spelling (what songs store and most clients send) is found by
    /// its length and first byte and one comparison, without hashing or building a folded copy; the scanner and
    /// every song block parse each tag name.
    public init?(parsing name: String) {
        let utf8 = name.utf8
        if let first = utf8.first, first < 128, utf8.count < 32 {
            for tag in Self.candidates[utf8.count &* 128 &+ Int(first)] where Self.names[tag.rawValue] == name {
                self = tag
                return
            }
        }
        self.init(parsing: Substring(name))
    }

    /// The canonical names' bytes one after another, each at `nameStarts[rawValue]`, in memory that lives as long as
    /// the process: compared with `memcmp`, as a song list compares every tag name of every song, and read per song
    /// and tag (`canonicalUTF8`) without making or retaining anything.
    nonisolated(unsafe) private static let nameBytes: UnsafeBufferPointer<UInt8> = {
        let bytes = allCases.flatMap { Array($0.mpdName.utf8) }
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = storage.initialize(from: bytes)
        return UnsafeBufferPointer(storage)
    }()
    private static let nameStarts: [Int] = allCases.reduce(into: [0]) { $0.append($0.last! + $1.mpdName.utf8.count) }

    /// The canonical spelling's bytes.
    public var canonicalUTF8: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: Self.nameBytes[Self.nameStarts[rawValue]..<Self.nameStarts[rawValue + 1]])
    }

    /// The tag whose canonical spelling is exactly these bytes (what songs store), found by the name's length and
    /// first byte and one `memcmp`.
    public init?(canonicalUTF8 name: UnsafeBufferPointer<UInt8>) {
        guard let base = name.baseAddress, let first = name.first, first < 128, name.count < 32 else { return nil }
        for tag in Self.candidates[name.count &* 128 &+ Int(first)]
        where memcmp(Self.nameBytes.baseAddress! + Self.nameStarts[tag.rawValue], base, name.count) == 0 {
            self = tag
            return
        }
        return nil
    }

    /// Parses a tag name case-insensitively, as MPD's `tag_name_parse_i` does for every argument. Only ASCII
    /// letters fold (MPD uses `strcasecmp`), so the Kelvin sign is not a `k`.
    public init?(parsing name: some StringProtocol) {
        let folded = String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        guard let tag = Self.byLowercasedName[folded] else { return nil }
        self = tag
    }

    /// The tags a filter on this tag looks at, in order (`ApplyTagWithFallback`, `src/tag/Fallback.hxx`): the first of
    /// them a song has decides the match; a song with none of them matches an empty value. `AlbumArtistSort` goes on
    /// to `AlbumArtist` and then to `Artist` (MPD falls back from there as from `ArtistSort`, to `Artist`, without
    /// looking at `ArtistSort` itself).
    public var filterChain: [TagName] {
        switch self {
        case .albumArtistSort: [.albumArtistSort, .albumArtist, .artist]
        case .albumArtist, .artistSort: [self, .artist]
        case .albumSort: [self, .album]
        case .titleSort: [self, .title]
        case .composerSort: [self, .composer]
        default: [self]
        }
    }

    /// The tag a `*Sort` tag falls back to when a song lacks it, for the sort keys of `playlistfind … sort`
    /// (filters follow `filterChain`). `AlbumArtist` falls back to `Artist`; `AlbumArtistSort` to `AlbumArtist`.
    public var fallback: TagName? {
        switch self {
        case .albumArtist: .artist
        case .albumArtistSort: .albumArtist
        case .artistSort: .artist
        case .albumSort: .album
        case .titleSort: .title
        case .composerSort: .composer
        default: nil
        }
    }

    public static func < (lhs: TagName, rhs: TagName) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A set of tag types, as kept per client by `tagtypes` and globally by `metadata_to_use`.
public struct TagMask: Sendable, Hashable {
    public private(set) var bits: UInt64

    public init(bits: UInt64 = 0) { self.bits = bits }
    public init(_ tags: some Sequence<TagName>) {
        bits = 0
        for tag in tags { insert(tag) }
    }

    public static let all = TagMask(TagName.allCases)
    public static let none = TagMask()
    /// MPD's default global mask: every tag but `Comment` (`src/tag/Settings.cxx`).
    public static var defaultGlobal: TagMask {
        var mask = TagMask.all
        mask.remove(.comment)
        return mask
    }

    public func contains(_ tag: TagName) -> Bool { bits & (1 << UInt64(tag.rawValue)) != 0 }
    public mutating func insert(_ tag: TagName) { bits |= 1 << UInt64(tag.rawValue) }
    public mutating func remove(_ tag: TagName) { bits &= ~(1 << UInt64(tag.rawValue)) }
    public func intersection(_ other: TagMask) -> TagMask { TagMask(bits: bits & other.bits) }
    public var tags: [TagName] { TagName.allCases.filter(contains) }
}
