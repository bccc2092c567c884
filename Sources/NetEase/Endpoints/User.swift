/// The user's listening history and cloud disk.
public enum UserEndpoints {
    /// `user_record` (`/api/v1/play/record`): most played songs of the last week or of all time.
    public struct Record: NetEaseEndpoint {
        public enum Period: Int, Sendable, Equatable {
            case allTime = 0
            case week = 1
        }

        public var userID: Int64
        public var period: Period

        public init(userID: Int64, period: Period = .week) {
            self.userID = userID
            self.period = period
        }

        public var path: String { "/api/v1/play/record" }
        public var parameters: [String: JSONValue] { ["uid": .int(userID), "type": .int(Int64(period.rawValue))] }

        public struct Response: Decodable, Sendable, Equatable {
            public var entries: [Entry]

            public struct Entry: Decodable, Sendable, Equatable {
                public var playCount: Int?
                public var score: Int?
                public var song: NetEaseSong

                public init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: AnyKey.self)
                    playCount = c.lenientInt(AnyKey("playCount")).map(Int.init)
                    score = c.lenientInt(AnyKey("score")).map(Int.init)
                    song = try c.decode(NetEaseSong.self, forKey: AnyKey("song"))
                }
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                entries = c.lenientArray(Entry.self, AnyKey("weekData")) ?? c.lenientArray(Entry.self, AnyKey("allData")) ?? []
            }
        }
    }

    /// `user_cloud` (`/api/v1/cloud/get`): the songs on the user's cloud disk (云盘), paged.
    public struct Cloud: NetEaseEndpoint {
        public var page: NetEasePage
        public init(page: NetEasePage = NetEasePage()) { self.page = page }
        public var path: String { "/api/v1/cloud/get" }
        public var parameters: [String: JSONValue] {
            ["limit": .int(Int64(page.limit)), "offset": .int(Int64(page.offset))]
        }

        public struct Response: Decodable, Sendable, Equatable {
            public var entries: [Entry]
            public var count: Int?
            public var hasMore: Bool

            /// One upload: NetEase's catalogue match (`simpleSong`) plus what the file itself said.
            public struct Entry: Decodable, Sendable, Equatable {
                public var song: NetEaseSong
                public var fileName: String?
                public var fileSize: Int64?
                public var bitRate: Int?
                public var addTime: Int64?

                public init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: AnyKey.self)
                    var song = try c.decode(NetEaseSong.self, forKey: AnyKey("simpleSong"))
                    // Uploads without a catalogue match have no names in `simpleSong`.
                    if song.name.isEmpty, let name = c.lenientString(AnyKey("songName")) { song.name = name }
                    if song.artists.allSatisfy({ ($0.name ?? "").isEmpty }), let artist = c.lenientString(AnyKey("artist")),
                       !artist.isEmpty {
                        song.artists = [NetEaseArtistRef(id: 0, name: artist)]
                    }
                    self.song = song
                    fileName = c.lenientString(AnyKey("fileName"))
                    fileSize = c.lenientInt(AnyKey("fileSize"))
                    bitRate = c.lenientInt(AnyKey("bitrate")).map(Int.init)
                    addTime = c.lenientInt(AnyKey("addTime"))
                }
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                entries = c.lenientArray(Entry.self, AnyKey("data")) ?? []
                count = c.lenientInt(AnyKey("count")).map(Int.init)
                hasMore = c.lenientBool(AnyKey("hasMore")) ?? false
            }
        }
    }
}

extension UserEndpoints {
    /// `scrobble` (`/api/feedback/weblog`): one play log entry, which counts toward "recently played" (最近播放) and
    /// the listening ranking (听歌排行). `logs` is itself JSON text; `sourceID` is the playlist or album the song
    /// was played from, `seconds` how long it played. weapi, whose cookie never carries `os`/`appver`: NetEase drops
    /// scrobbles that do. ENH sends `action` "startplay" first, then "play".
    public struct Scrobble: NetEaseEndpoint {
        public var songID: Int64
        public var sourceID: Int64?
        public var seconds: Int
        public var action: String
        public var source: String

        public init(songID: Int64, sourceID: Int64?, seconds: Int, action: String = "play", source: String = "list") {
            self.songID = songID
            self.sourceID = sourceID
            self.seconds = seconds
            self.action = action
            self.source = source
        }

        public var path: String { "/api/feedback/weblog" }
        public var parameters: [String: JSONValue] {
            let sourceID = self.sourceID.map { String($0) } ?? ""
            let entry: JSONValue = [
                "action": .string(action),
                "json": [
                    "download": 0, "end": "playend", "id": .int(songID), "sourceId": .string(sourceID),
                    "time": .int(Int64(seconds)), "type": "song", "wifi": 0, "source": .string(source),
                    "mainsite": "1", "mainsiteWeb": "1", "content": .string("id=\(sourceID)"),
                ],
            ]
            return ["logs": .string(JSONValue.array([entry]).jsonText)]
        }
        public typealias Response = NetEaseEmptyResponse
    }
}
