/// Catalogue search.
public enum SearchEndpoints {
    /// `cloudsearch` (`/api/cloudsearch/pc`). weapi by default: `/weapi/cloudsearch/pc` works (as GMF sends
    /// it); NCM sends it as eapi, which `crypto` allows.
    public struct CloudSearch: NetEaseEndpoint {
        public enum Kind: Int, Sendable, Equatable {
            case songs = 1
            case albums = 10
            case artists = 100
            case playlists = 1000
        }

        public var keywords: String
        public var kind: Kind
        public var page: NetEasePage
        public var crypto: RequestCrypto

        public init(keywords: String, kind: Kind = .songs, page: NetEasePage = NetEasePage(),
                    crypto: RequestCrypto = .weapi) {
            self.keywords = keywords
            self.kind = kind
            self.page = page
            self.crypto = crypto
        }

        public var path: String { "/api/cloudsearch/pc" }
        public var parameters: [String: JSONValue] {
            ["s": .string(keywords), "type": .int(Int64(kind.rawValue)), "limit": .int(Int64(page.limit)),
             "offset": .int(Int64(page.offset)), "total": true]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var songs: [NetEaseSong]
            public var songCount: Int?
            public var albums: [NetEaseAlbum]
            public var albumCount: Int?
            public var artists: [NetEaseArtist]
            public var artistCount: Int?
            public var playlists: [NetEasePlaylist]
            public var playlistCount: Int?

            public init(from decoder: any Decoder) throws {
                let top = try decoder.container(keyedBy: AnyKey.self)
                // No `result` at all: nothing found.
                let c = (try? top.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("result"))) ?? top
                songs = c.lenientArray(NetEaseSong.self, AnyKey("songs")) ?? []
                songCount = c.lenientInt(AnyKey("songCount")).map(Int.init)
                albums = c.lenientArray(NetEaseAlbum.self, AnyKey("albums")) ?? []
                albumCount = c.lenientInt(AnyKey("albumCount")).map(Int.init)
                artists = c.lenientArray(NetEaseArtist.self, AnyKey("artists")) ?? []
                artistCount = c.lenientInt(AnyKey("artistCount")).map(Int.init)
                playlists = c.lenientArray(NetEasePlaylist.self, AnyKey("playlists")) ?? []
                playlistCount = c.lenientInt(AnyKey("playlistCount")).map(Int.init)
            }
        }
    }

    /// `search_suggest` (`/api/search/suggest/web`): a few of each kind as the user types. Songs come in the
    /// old shape.
    public struct Suggest: NetEaseEndpoint {
        public var keywords: String
        public init(keywords: String) { self.keywords = keywords }
        public var path: String { "/api/search/suggest/web" }
        public var parameters: [String: JSONValue] { ["s": .string(keywords)] }
        public typealias Response = CloudSearch.Response
    }
}
