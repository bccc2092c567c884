// Temporary copies of endpoints from branch fake-endpoints; removed when it is merged.

extension RecommendEndpoints {
    public struct Intelligence: NetEaseEndpoint {
        public var songID: Int64
        public var playlistID: Int64
        public var startSongID: Int64?

        public init(songID: Int64, playlistID: Int64, startSongID: Int64? = nil) {
            self.songID = songID
            self.playlistID = playlistID
            self.startSongID = startSongID
        }

        public var path: String { "/api/playmode/intelligence/list" }
        public var parameters: [String: JSONValue] {
            ["songId": .int(songID), "type": "fromPlayOne", "playlistId": .int(playlistID),
             "startMusicId": .int(startSongID ?? songID), "count": 1]
        }

        public struct Response: Decodable, Sendable, Equatable {
            /// `data[].songInfo` (new song shape), in NetEase's order; entries without one are skipped.
            public var songs: [NetEaseSong]

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                songs = (c.lenientArray(Item.self, AnyKey("data")) ?? []).compactMap(\.song)
            }

            private struct Item: Decodable {
                var song: NetEaseSong?
                init(from decoder: any Decoder) throws {
                    let c = try decoder.container(keyedBy: AnyKey.self)
                    song = c.lenient(NetEaseSong.self, AnyKey("songInfo"))
                }
            }
        }
    }
}

extension UserEndpoints {
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
