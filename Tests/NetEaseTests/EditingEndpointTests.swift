import Foundation
@testable import NetEase
import Testing

/// The endpoints that change the account (like, playlists, FM dislikes, scrobbles) and heartbeat mode: what each
/// sends and how its answer reads. The FakeNetEaseTests run them against the fake server.
@Suite struct EditingEndpointTests {
    func check<E: NetEaseEndpoint>(_ endpoint: E, _ path: String, _ parameters: [String: JSONValue],
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(endpoint.path == path, sourceLocation: sourceLocation)
        #expect(endpoint.crypto == .weapi, sourceLocation: sourceLocation)
        #expect(endpoint.parameters == parameters, "\(path)", sourceLocation: sourceLocation)
        #expect(endpoint.cookieOverrides.isEmpty, sourceLocation: sourceLocation)
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try NetEaseClient.decode(T.self, from: Array(text.utf8), path: "/api/test")
    }

    @Test func like() {
        check(SongEndpoints.Like(id: 347230, like: true), "/api/radio/like",
              ["alg": "itembased", "trackId": 347230, "like": true, "time": "3"])
        check(SongEndpoints.Like(id: 5, like: false), "/api/radio/like",
              ["alg": "itembased", "trackId": 5, "like": false, "time": "3"])
    }

    @Test func playlistCreateAndRemove() throws {
        check(PlaylistEndpoints.Create(name: "新建 ✨"), "/api/playlist/create",
              ["name": "新建 ✨", "privacy": "0", "type": "NORMAL"])
        check(PlaylistEndpoints.Create(name: "secret", isPrivate: true), "/api/playlist/create",
              ["name": "secret", "privacy": "10", "type": "NORMAL"])
        check(PlaylistEndpoints.Remove(ids: [2_000_000_003]), "/api/playlist/remove", ["ids": "[2000000003]"])
        check(PlaylistEndpoints.Remove(ids: [1, 2]), "/api/playlist/remove", ["ids": "[1,2]"])
        check(PlaylistEndpoints.Rename(id: 2_000_000_002, name: "早晨 Mix"), "/api/playlist/update/name",
              ["id": 2_000_000_002, "name": "早晨 Mix"])

        let created = try decode(PlaylistEndpoints.Create.Response.self,
                                 #"{"code":200,"id":6781,"playlist":{"id":6781,"name":"新建","trackCount":0}}"#)
        #expect(created.id == 6781)
        #expect(created.playlist?.name == "新建")
        // The id alone is enough; a playlist that does not read is left out rather than failing the answer.
        let bare = try decode(PlaylistEndpoints.Create.Response.self, #"{"code":200,"id":"6782","playlist":{"name":1}}"#)
        #expect(bare.id == 6782 && bare.playlist == nil)
        #expect(throws: NetEaseError.self) { try decode(PlaylistEndpoints.Create.Response.self, #"{"code":200}"#) }
    }

    @Test func playlistTracks() throws {
        check(PlaylistEndpoints.Tracks(operation: .add, playlistID: 9, trackIDs: [1, 2]),
              "/api/playlist/manipulate/tracks", ["op": "add", "pid": 9, "trackIds": #"["1","2"]"#, "imme": "true"])
        check(PlaylistEndpoints.Tracks(operation: .delete, playlistID: 9, trackIDs: [3]),
              "/api/playlist/manipulate/tracks", ["op": "del", "pid": 9, "trackIds": #"["3"]"#, "imme": "true"])
        check(PlaylistEndpoints.Tracks(operation: .update, playlistID: 9, trackIDs: [3, 1, 2]),
              "/api/playlist/manipulate/tracks",
              ["op": "update", "pid": 9, "trackIds": #"["3","1","2"]"#, "imme": "true"])
        #expect(PlaylistEndpoints.Tracks.Operation.allCases.map(\.rawValue) == ["add", "del", "update"])

        let answer = try decode(PlaylistEndpoints.Tracks.Response.self,
                                #"{"code":200,"trackIds":"[1969519579,\"5\"]","count":25,"cloudCount":0}"#)
        #expect(answer.trackIDs == [1_969_519_579, 5])
        #expect(answer.count == 25)
        let plain = try decode(PlaylistEndpoints.Tracks.Response.self, #"{"code":200}"#)
        #expect(plain.trackIDs.isEmpty && plain.count == nil)
        let array = try decode(PlaylistEndpoints.Tracks.Response.self, #"{"code":200,"trackIds":[7,8],"count":"2"}"#)
        #expect(array.trackIDs == [7, 8] && array.count == 2)
    }

    @Test func fmTrash() {
        check(RecommendEndpoints.FMTrash(songID: 33894312), "/api/radio/trash/add",
              ["songId": 33894312, "alg": "RT", "time": 25])
        check(RecommendEndpoints.FMTrash(songID: 1, seconds: 4), "/api/radio/trash/add",
              ["songId": 1, "alg": "RT", "time": 4])
    }

    @Test func intelligence() throws {
        check(RecommendEndpoints.Intelligence(songID: 5, playlistID: 9), "/api/playmode/intelligence/list",
              ["songId": 5, "type": "fromPlayOne", "playlistId": 9, "startMusicId": 5, "count": 1])
        check(RecommendEndpoints.Intelligence(songID: 5, playlistID: 9, startSongID: 6),
              "/api/playmode/intelligence/list",
              ["songId": 5, "type": "fromPlayOne", "playlistId": 9, "startMusicId": 6, "count": 1])

        let answer = try decode(RecommendEndpoints.Intelligence.Response.self, """
            {"code":200,"data":[
              {"id":11,"songInfo":{"id":11,"name":"One","ar":[{"id":1,"name":"A"}],"al":{"id":2,"name":"B"},"dt":1000},
               "recommended":false,"alg":"x"},
              {"id":12,"recommended":true,"alg":"x"},
              {"id":13,"songInfo":null},
              {"id":14,"songInfo":{"id":14,"name":"Four","ar":[],"al":{"id":0,"name":null},"dt":2000},"recommended":true}
            ]}
            """)
        #expect(answer.songs.map(\.id) == [11, 14])
        #expect(answer.songs.first?.artists.first?.name == "A")
        #expect(answer.songs.first?.durationMilliseconds == 1000)
        #expect(try decode(RecommendEndpoints.Intelligence.Response.self, #"{"code":200}"#).songs.isEmpty)
    }

    @Test func scrobble() throws {
        let endpoint = UserEndpoints.Scrobble(songID: 5_000_011, sourceID: 2_000_000_001, seconds: 6)
        #expect(endpoint.path == "/api/feedback/weblog")
        #expect(endpoint.crypto == .weapi)
        #expect(endpoint.parameters.keys.sorted() == ["logs"])
        let text = try #require(endpoint.parameters["logs"]?.stringValue)
        let logs = try #require(JSONValue.parse(Array(text.utf8)))
        #expect(logs == [[
            "action": "play",
            "json": ["download": 0, "end": "playend", "id": 5_000_011, "sourceId": "2000000001", "time": 6,
                     "type": "song", "wifi": 0, "source": "list", "mainsite": "1", "mainsiteWeb": "1",
                     "content": "id=2000000001"],
        ]])

        let start = UserEndpoints.Scrobble(songID: 7, sourceID: nil, seconds: 0, action: "startplay", source: "album")
        let startLogs = try #require(JSONValue.parse(Array((start.parameters["logs"]?.stringValue ?? "").utf8)))
        #expect(startLogs == [[
            "action": "startplay",
            "json": ["download": 0, "end": "playend", "id": 7, "sourceId": "", "time": 0, "type": "song", "wifi": 0,
                     "source": "album", "mainsite": "1", "mainsiteWeb": "1", "content": "id="],
        ]])
    }

    /// The empty answers read whatever else NetEase puts in them.
    @Test func emptyResponses() throws {
        _ = try decode(SongEndpoints.Like.Response.self, #"{"code":200,"playlistId":1,"songs":[]}"#)
        _ = try decode(RecommendEndpoints.FMTrash.Response.self, #"{"code":200,"data":true,"count":1}"#)
        _ = try decode(UserEndpoints.Scrobble.Response.self, #"{"code":200,"data":"success","message":""}"#)
        _ = try decode(PlaylistEndpoints.Remove.Response.self, #"{"code":200}"#)
    }
}
