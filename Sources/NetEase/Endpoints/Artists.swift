/// Artists.
public enum ArtistEndpoints {
    /// `artists` (`/api/v1/artist/{id}`): the artist and their popular songs.
    public struct Artist: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/v1/artist/\(id)" }

        public struct Response: Decodable, Sendable, Equatable {
            public var artist: NetEaseArtist
            public var hotSongs: [NetEaseSong]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                artist = try c.decode(NetEaseArtist.self, forKey: AnyKey("artist"))
                hotSongs = c.lenientArray(NetEaseSong.self, AnyKey("hotSongs")) ?? []
            }
        }
    }

    /// `artist_top_song` (`/api/artist/top/song`): up to 50 top songs (`netease://artist/<id>`).
    public struct TopSongs: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/artist/top/song" }
        public var parameters: [String: JSONValue] { ["id": .int(id)] }

        public struct Response: Decodable, Sendable, Equatable {
            public var songs: [NetEaseSong]
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                songs = c.lenientArray(NetEaseSong.self, AnyKey("songs")) ?? []
            }
        }
    }

    /// `artist_album` (`/api/artist/albums/{id}`): the artist's albums, paged.
    public struct Albums: NetEaseEndpoint {
        public var id: Int64
        public var page: NetEasePage

        public init(id: Int64, page: NetEasePage = NetEasePage()) {
            self.id = id
            self.page = page
        }

        public var path: String { "/api/artist/albums/\(id)" }
        public var parameters: [String: JSONValue] {
            ["limit": .int(Int64(page.limit)), "offset": .int(Int64(page.offset)), "total": true]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var albums: [NetEaseAlbum]
            public var more: Bool
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                albums = c.lenientArray(NetEaseAlbum.self, AnyKey("hotAlbums")) ?? []
                more = c.lenientBool(AnyKey("more")) ?? false
            }
        }
    }

    /// `artist_sublist` (`/api/artist/sublist`): the artists the user follows. Not in the reference's table:
    /// path and parameters are NCM's `module/artist_sublist.js`.
    public struct Subscribed: NetEaseEndpoint {
        public var page: NetEasePage
        public init(page: NetEasePage = NetEasePage(limit: 25)) { self.page = page }
        public var path: String { "/api/artist/sublist" }
        public var parameters: [String: JSONValue] {
            ["limit": .int(Int64(page.limit)), "offset": .int(Int64(page.offset)), "total": true]
        }
        public typealias Response = SubscribedList<NetEaseArtist>
    }
}
