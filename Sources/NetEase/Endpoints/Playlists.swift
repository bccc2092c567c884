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
    /// with `song_detail`.
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

/// Editing the account's own playlists. All weapi, all need a login; NetEase answers 401 for playlists that are
/// not the account's.
extension PlaylistEndpoints {
    /// `playlist_create` (`/api/playlist/create`): a new, empty playlist. `privacy` "10" makes it private.
    public struct Create: NetEaseEndpoint {
        public var name: String
        public var isPrivate: Bool

        public init(name: String, isPrivate: Bool = false) {
            self.name = name
            self.isPrivate = isPrivate
        }

        public var path: String { "/api/playlist/create" }
        public var parameters: [String: JSONValue] {
            ["name": .string(name), "privacy": isPrivate ? "10" : "0", "type": "NORMAL"]
        }

        public struct Response: Decodable, Sendable, Equatable {
            /// The new playlist's id (also `playlist.id`; the top-level one is always there).
            public var id: Int64
            /// The new playlist as NetEase lists it, when the answer carries a readable one.
            public var playlist: NetEasePlaylist?

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                playlist = c.lenient(NetEasePlaylist.self, AnyKey("playlist"))
                guard let id = c.lenientInt(AnyKey("id")) ?? playlist?.id else {
                    throw DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: c.codingPath,
                                                                        debugDescription: "created playlist without id"))
                }
                self.id = id
            }
        }
    }

    /// `playlist_delete` (`/api/playlist/remove`): deletes playlists. `ids` goes as a JSON string (`'[1,2]'`).
    /// NetEase refuses the liked-songs playlist and others' playlists.
    public struct Remove: NetEaseEndpoint {
        public var ids: [Int64]
        public init(ids: [Int64]) { self.ids = ids }
        public var path: String { "/api/playlist/remove" }
        public var parameters: [String: JSONValue] {
            ["ids": .string(JSONValue.array(ids.map { .int($0) }).jsonText)]
        }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `playlist_name_update` (`/api/playlist/update/name`): renames one of the user's own playlists.
    public struct Rename: NetEaseEndpoint {
        public var id: Int64
        public var name: String
        public init(id: Int64, name: String) {
            self.id = id
            self.name = name
        }
        public var path: String { "/api/playlist/update/name" }
        public var parameters: [String: JSONValue] { ["id": .int(id), "name": .string(name)] }
        public typealias Response = NetEaseEmptyResponse
    }

    /// `playlist_tracks` (`/api/playlist/manipulate/tracks`): adds, deletes or reorders songs of an own playlist
    /// (the liked-songs one included). The ids go as a JSON string of strings (`'["1","2"]'`), as NCM sends them.
    /// NetEase answers 512 now and then for a valid request; `NetEaseClient.changePlaylistTracks` retries that
    /// the way NCM does.
    public struct Tracks: NetEaseEndpoint {
        public enum Operation: String, Sendable, Equatable, CaseIterable {
            /// New songs go to the top of the playlist, as in NetEase's apps.
            case add
            case delete = "del"
            /// `trackIDs` is the playlist's complete new order (NCM's `song_order_update` sends this op to this
            /// same path).
            case update
        }

        public var operation: Operation
        public var playlistID: Int64
        public var trackIDs: [Int64]

        public init(operation: Operation, playlistID: Int64, trackIDs: [Int64]) {
            self.operation = operation
            self.playlistID = playlistID
            self.trackIDs = trackIDs
        }

        public var path: String { "/api/playlist/manipulate/tracks" }
        public var parameters: [String: JSONValue] {
            ["op": .string(operation.rawValue), "pid": .int(playlistID),
             "trackIds": .string(JSONValue.array(trackIDs.map { .string(String($0)) }).jsonText), "imme": "true"]
        }

        public struct Response: Decodable, Sendable, Equatable {
            /// The ids NetEase names in its answer (`trackIds`, itself a JSON string); empty when it names none.
            public var trackIDs: [Int64]
            /// The playlist's track count after the change.
            public var count: Int?

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                var ids: [JSONValue] = []
                if let text = c.lenientString(AnyKey("trackIds")), case .array(let array)? = JSONValue.parse(Array(text.utf8)) {
                    ids = array
                } else if let array = c.lenientArray(JSONValue.self, AnyKey("trackIds")) {
                    ids = array
                }
                trackIDs = ids.compactMap(\.intValue)
                count = c.lenientInt(AnyKey("count")).map(Int.init)
            }
        }
    }
}
