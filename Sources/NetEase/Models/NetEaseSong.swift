import Foundation
import PlayerCore

/// An artist as songs and albums name it.
public struct NetEaseArtistRef: Sendable, Equatable, Decodable {
    public var id: Int64
    /// nil for some cloud-disk uploads.
    public var name: String?

    public init(id: Int64, name: String?) {
        self.id = id
        self.name = name
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("id")) ?? 0
        name = c.lenientString(AnyKey("name"))
    }
}

/// An album as a song names it (`al` or `album`).
public struct NetEaseAlbumRef: Sendable, Equatable, Decodable {
    public var id: Int64
    public var name: String?
    public var coverURL: String?
    /// Only the old song shape carries these two.
    public var artistName: String?
    public var publishTime: Int64?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("id")) ?? 0
        name = c.lenientString(AnyKey("name"))
        coverURL = c.lenientString(AnyKey("picUrl"))
        artistName = c.lenient(NetEaseArtistRef.self, AnyKey("artist"))?.name
        publishTime = c.lenientInt(AnyKey("publishTime"))
    }
}

/// What NetEase's `privilege` says about playing a song.
public struct NetEasePrivilege: Sendable, Equatable, Decodable {
    public var id: Int64
    public var fee: Int?
    /// < 0: greyed out (no copyright).
    public var status: Int?
    /// Highest bit rate playable by this account, 0 when none.
    public var playableBitRate: Int?
    /// A cloud-disk song.
    public var cloud: Bool?
    public var maxLevel: String?
    public var playLevel: String?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("id")) ?? 0
        fee = c.lenientInt(AnyKey("fee")).map(Int.init)
        status = c.lenientInt(AnyKey("st")).map(Int.init)
        playableBitRate = c.lenientInt(AnyKey("pl")).map(Int.init)
        cloud = c.lenientBool(AnyKey("cs"))
        maxLevel = c.lenientString(AnyKey("maxBrLevel"))
        playLevel = c.lenientString(AnyKey("plLevel"))
    }
}

/// A song in either of NetEase's two shapes: the new one (`ar`, `al`, `dt`, `cd`,
/// `publishTime`) from song_detail, search, playlists, albums; the old one (`artists`, `album`, `duration`,
/// `disc`) from personal FM, search suggestions and DJ programmes. Both decode to the same fields, so the rest of
/// the server maps one model to MPD tags.
public struct NetEaseSong: Sendable, Equatable, Decodable {
    public var id: Int64
    public var name: String
    public var artists: [NetEaseArtistRef]
    public var album: NetEaseAlbumRef?
    /// Milliseconds.
    public var durationMilliseconds: Int64?
    /// Track number within its disc; 0 or nil when unknown.
    public var trackNumber: Int?
    /// As sent: "1", "01", "1/2" or nil.
    public var disc: String?
    /// Milliseconds since the epoch (0 or nil: unknown).
    public var publishTime: Int64?
    /// Alternative titles (`alia`/`alias`) and translations (`tns`/`transNames`).
    public var aliases: [String]
    public var translations: [String]
    /// 0 free, 1 VIP, 4 paid album, 8 free at low quality.
    public var fee: Int?
    /// 0 normal, 1 cloud only, 2 cloud matched.
    public var cloudType: Int?
    public var privilege: NetEasePrivilege?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        guard let id = c.lenientInt(AnyKey("id")) else {
            throw DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: c.codingPath, debugDescription: "song without id"))
        }
        self.id = id
        name = c.lenientString(AnyKey("name")) ?? ""
        artists = c.lenientArray(NetEaseArtistRef.self, AnyKey("ar"))
            ?? c.lenientArray(NetEaseArtistRef.self, AnyKey("artists")) ?? []
        album = c.lenient(NetEaseAlbumRef.self, AnyKey("al")) ?? c.lenient(NetEaseAlbumRef.self, AnyKey("album"))
        durationMilliseconds = c.lenientInt(AnyKey("dt")) ?? c.lenientInt(AnyKey("duration"))
        trackNumber = c.lenientInt(AnyKey("no")).map(Int.init)
        disc = c.lenientString(AnyKey("cd")) ?? c.lenientString(AnyKey("disc"))
        let own = c.lenientInt(AnyKey("publishTime"))
        publishTime = (own ?? 0) > 0 ? own : album?.publishTime
        aliases = c.lenientArray(String.self, AnyKey("alia")) ?? c.lenientArray(String.self, AnyKey("alias")) ?? []
        translations = c.lenientArray(String.self, AnyKey("tns")) ?? c.lenientArray(String.self, AnyKey("transNames")) ?? []
        fee = c.lenientInt(AnyKey("fee")).map(Int.init)
        cloudType = c.lenientInt(AnyKey("t")).map(Int.init)
        privilege = c.lenient(NetEasePrivilege.self, AnyKey("privilege"))
        // Cloud uploads keep the uploader's own tags in `pc` when the catalogue match has none.
        if let pc = c.lenient(CloudTags.self, AnyKey("pc")) {
            if artists.allSatisfy({ ($0.name ?? "").isEmpty }), let artist = pc.artist, !artist.isEmpty {
                artists = [NetEaseArtistRef(id: 0, name: artist)]
            }
            if (album?.name ?? "").isEmpty, let albumName = pc.album, !albumName.isEmpty {
                album = album ?? NetEaseAlbumRef(id: 0, name: nil)
                album?.name = albumName
            }
        }
    }

    /// `pc` of a cloud-disk song: what the uploaded file's tags said.
    private struct CloudTags: Decodable {
        var artist: String?
        var album: String?
        enum CodingKeys: String, CodingKey {
            case artist = "ar"
            case album = "alb"
        }
    }

    public var uri: String { NetEaseURI.song(id) }

    /// The album cover, when NetEase has one.
    public var coverURL: String? { album?.coverURL.flatMap { $0.isEmpty ? nil : $0 } }

    /// The song as the player core sees it, with these tags: Artist once
    /// per artist, AlbumArtist (the album's artist, else the first artist), Title, Album, Track, Disc, Date
    /// (the release day in Beijing time, which is how NetEase stores it), Comment (an alias or translation of the
    /// title, which NetEase's apps show next to it), and the duration.
    public var playerSong: Song {
        var tags: [Song.Tag] = []
        let artistNames = artists.compactMap { $0.name?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for artist in artistNames { tags.append(.init("Artist", artist)) }
        if let albumArtist = album?.artistName.flatMap({ $0.isEmpty ? nil : $0 }) ?? artistNames.first {
            tags.append(.init("AlbumArtist", albumArtist))
        }
        if !name.isEmpty { tags.append(.init("Title", name)) }
        if let albumName = album?.name, !albumName.isEmpty { tags.append(.init("Album", albumName)) }
        if let track = trackNumber, track > 0 { tags.append(.init("Track", String(track))) }
        if let disc = Self.leadingNumber(disc), disc > 0 { tags.append(.init("Disc", String(disc))) }
        if let time = publishTime, time > 0 { tags.append(.init("Date", Self.date(milliseconds: time))) }
        if let comment = (aliases + translations).first(where: { !$0.isEmpty }) {
            tags.append(.init("Comment", comment))
        }
        let duration = durationMilliseconds.flatMap { $0 > 0 ? Double($0) / 1000 : nil }
        return Song(uri: uri, tags: tags, duration: duration)
    }

    /// `1` of "1", "01", "1/2".
    static func leadingNumber(_ text: String?) -> Int? {
        guard let text else { return nil }
        let digits = text.trimmingCharacters(in: .whitespaces).prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }

    /// `YYYY-MM-DD` in UTC+8: NetEase's release times are Beijing midnights (1388505600000 is 2014-01-01).
    static func date(milliseconds: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 8 * 3600)!
        let parts = calendar.dateComponents([.year, .month, .day],
                                            from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

extension NetEaseAlbumRef {
    init(id: Int64, name: String?) {
        self.id = id
        self.name = name
    }
}

/// The `netease://` URIs.
public enum NetEaseURI {
    public static let scheme = "netease://"
    public static func song(_ id: Int64) -> String { "netease://song/\(id)" }
    public static func playlist(_ id: Int64) -> String { "netease://playlist/\(id)" }
    public static func album(_ id: Int64) -> String { "netease://album/\(id)" }
    public static func artist(_ id: Int64) -> String { "netease://artist/\(id)" }

    /// The id of a `netease://song/<id>`.
    public static func songID(_ uri: String) -> Int64? {
        guard uri.hasPrefix("netease://song/") else { return nil }
        return Int64(uri.dropFirst("netease://song/".count))
    }
}
