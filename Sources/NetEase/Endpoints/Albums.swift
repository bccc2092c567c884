/// Albums.
public enum AlbumEndpoints {
    /// `album` (`/api/v1/album/{id}`): the album and its songs (new shape, track and disc set).
    public struct Album: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/v1/album/\(id)" }

        public struct Response: Decodable, Sendable, Equatable {
            public var album: NetEaseAlbum
            public var songs: [NetEaseSong]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                album = try c.decode(NetEaseAlbum.self, forKey: AnyKey("album"))
                songs = c.lenientArray(NetEaseSong.self, AnyKey("songs")) ?? []
            }
        }
    }

    /// `album_sublist` (`/api/album/sublist`): the albums the user subscribed to. Not in the reference's
    /// table: path and parameters are NCM's `module/album_sublist.js`.
    public struct Subscribed: NetEaseEndpoint {
        public var page: NetEasePage
        public init(page: NetEasePage = NetEasePage(limit: 25)) { self.page = page }
        public var path: String { "/api/album/sublist" }
        public var parameters: [String: JSONValue] {
            ["limit": .int(Int64(page.limit)), "offset": .int(Int64(page.offset)), "total": true]
        }
        public typealias Response = SubscribedList<NetEaseAlbum>
    }
}

/// `{data:[…], count, hasMore}` of the subscription lists.
public struct SubscribedList<Item: Decodable & Sendable & Equatable>: Decodable, Sendable, Equatable {
    public var items: [Item]
    public var count: Int?
    public var hasMore: Bool

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        items = c.lenientArray(Item.self, AnyKey("data")) ?? []
        count = c.lenientInt(AnyKey("count")).map(Int.init)
        hasMore = c.lenientBool(AnyKey("hasMore")) ?? false
    }
}
