/// Playlists: the user's, one in detail, the charts.
public enum PlaylistEndpoints {
    /// `user_playlist` (`/api/user/playlist`): own and subscribed playlists, paged until `more` is false. The one
    /// with `specialType` 5 created by the user is "liked songs" (我喜欢的音乐).
    public struct UserPlaylists: NetEaseEndpoint {
        public var userID: Int64
        public var page: NetEasePage

        public init(userID: Int64, page: NetEasePage = NetEasePage()) {
            self.userID = userID
            self.page = page
        }

        public var path: String { "/api/user/playlist" }
        public var parameters: [String: JSONValue] {
            ["uid": .int(userID), "limit": .int(Int64(page.limit)), "offset": .int(Int64(page.offset)),
             "includeVideo": true]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var playlists: [NetEasePlaylist]
            public var more: Bool

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                playlists = c.lenientArray(NetEasePlaylist.self, AnyKey("playlist")) ?? []
                more = c.lenientBool(AnyKey("more")) ?? false
            }
        }
    }

    /// `playlist_detail` (`/api/v6/playlist/detail`) over weapi (GMF, PYNCM; NCM uses plain api). `tracks` may
    /// be truncated; `trackIds` is complete when logged in, so `NetEaseClient.playlistTracks` fetches the rest
    /// with `song_detail` (reference §5.8).
    public struct Detail: NetEaseEndpoint {
        public var id: Int64
        public init(id: Int64) { self.id = id }
        public var path: String { "/api/v6/playlist/detail" }
        public var parameters: [String: JSONValue] { ["id": .int(id), "n": 100000, "s": 8] }

        public struct Response: Decodable, Sendable, Equatable {
            public var playlist: NetEasePlaylist
            public var privileges: [NetEasePrivilege]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                playlist = try c.decode(NetEasePlaylist.self, forKey: AnyKey("playlist"))
                privileges = c.lenientArray(NetEasePrivilege.self, AnyKey("privileges")) ?? []
            }
        }
    }

    /// `toplist` (`/api/toplist`): the official charts, each a playlist. Not in the reference's table: the path
    /// is NCM's `module/toplist.js`; weapi as for the other catalogue calls.
    public struct Toplist: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/toplist" }

        public struct Response: Decodable, Sendable, Equatable {
            public var list: [NetEasePlaylist]
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                list = c.lenientArray(NetEasePlaylist.self, AnyKey("list")) ?? []
            }
        }
    }
}
