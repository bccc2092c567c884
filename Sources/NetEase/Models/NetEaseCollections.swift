/// A NetEase user as playlists and logins name them.
public struct NetEaseUser: Sendable, Equatable, Decodable {
    public var id: Int64
    public var nickname: String?
    public var avatarURL: String?
    /// 0 none, 10/11 VIP variants.
    public var vipType: Int?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("userId")) ?? c.lenientInt(AnyKey("id")) ?? 0
        nickname = c.lenientString(AnyKey("nickname"))
        avatarURL = c.lenientString(AnyKey("avatarUrl"))
        vipType = c.lenientInt(AnyKey("vipType")).map(Int.init)
    }
}

/// A playlist in any listing: user_playlist, playlist_detail, search, recommend_resource, toplist.
public struct NetEasePlaylist: Sendable, Equatable, Decodable {
    public var id: Int64
    public var name: String
    /// `coverImgUrl`, or `picUrl` in recommendations.
    public var coverURL: String?
    public var trackCount: Int?
    public var creator: NetEaseUser?
    /// Whether the user follows it rather than owns it.
    public var subscribed: Bool?
    /// 5: the user's "liked songs" playlist; 10: an official chart.
    public var specialType: Int?
    public var description: String?
    /// Only in playlist_detail: every track id, in order (complete when logged in).
    public var trackIDs: [Int64]?
    /// Only in playlist_detail: the first tracks in full; may be truncated.
    public var tracks: [NetEaseSong]?
    public var updateTime: Int64?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        guard let id = c.lenientInt(AnyKey("id")) else {
            throw DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: c.codingPath, debugDescription: "playlist without id"))
        }
        self.id = id
        name = c.lenientString(AnyKey("name")) ?? ""
        coverURL = c.lenientString(AnyKey("coverImgUrl")) ?? c.lenientString(AnyKey("picUrl"))
        trackCount = c.lenientInt(AnyKey("trackCount")).map(Int.init)
        creator = c.lenient(NetEaseUser.self, AnyKey("creator"))
        subscribed = c.lenientBool(AnyKey("subscribed"))
        specialType = c.lenientInt(AnyKey("specialType")).map(Int.init)
        description = c.lenientString(AnyKey("description"))
        trackIDs = c.lenientArray(TrackID.self, AnyKey("trackIds"))?.map(\.id)
        tracks = c.lenientArray(NetEaseSong.self, AnyKey("tracks"))
        updateTime = c.lenientInt(AnyKey("updateTime"))
    }

    private struct TrackID: Decodable {
        var id: Int64
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            guard let id = c.lenientInt(AnyKey("id")) else {
                throw DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: c.codingPath, debugDescription: ""))
            }
            self.id = id
        }
    }
}

/// An album in a listing or an album page.
public struct NetEaseAlbum: Sendable, Equatable, Decodable {
    public var id: Int64
    public var name: String
    public var coverURL: String?
    public var artists: [NetEaseArtistRef]
    /// Number of songs.
    public var size: Int?
    public var publishTime: Int64?
    public var company: String?
    public var description: String?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("id")) ?? 0
        name = c.lenientString(AnyKey("name")) ?? ""
        coverURL = c.lenientString(AnyKey("picUrl"))
        var artists = c.lenientArray(NetEaseArtistRef.self, AnyKey("artists")) ?? []
        if artists.isEmpty, let artist = c.lenient(NetEaseArtistRef.self, AnyKey("artist")) { artists = [artist] }
        self.artists = artists
        size = c.lenientInt(AnyKey("size")).map(Int.init)
        publishTime = c.lenientInt(AnyKey("publishTime"))
        company = c.lenientString(AnyKey("company"))
        description = c.lenientString(AnyKey("description"))
    }
}

/// An artist in a listing or an artist page.
public struct NetEaseArtist: Sendable, Equatable, Decodable {
    public var id: Int64
    public var name: String
    public var pictureURL: String?
    public var albumCount: Int?
    public var songCount: Int?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = c.lenientInt(AnyKey("id")) ?? 0
        name = c.lenientString(AnyKey("name")) ?? ""
        pictureURL = c.lenientString(AnyKey("picUrl")) ?? c.lenientString(AnyKey("img1v1Url"))
        albumCount = c.lenientInt(AnyKey("albumSize")).map(Int.init)
        songCount = c.lenientInt(AnyKey("musicSize")).map(Int.init)
    }
}
