import FakeNetEase
import Foundation
import Library
import MPDProtocol
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import Testing

/// The `liked` sticker is NetEase's like, both ways; `disliked` puts a song in the personal FM's trash; other
/// stickers on NetEase songs stay in the local sticker database.
@Suite struct LikeStickerTests {
    /// 海风: in the catalogue and in the own playlist 通勤路上 🚇, not liked.
    static let song = 5_000_012
    static var uri: String { "netease://song/\(song)" }

    @Test func likingAndUnlikingChangeNetEaseLikeList() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker get song \(Self.uri) liked") == "ACK [50@0] {sticker} no such sticker: \"liked\"\n")
        #expect(await c.send("sticker set song \(Self.uri) liked 1") == "OK\n")
        #expect(fixture.server.likedSongIDs.first == Self.song)
        #expect(c.takeIdle() == ["sticker"])
        // Not the like list remembered before the like.
        #expect(await c.send("sticker get song \(Self.uri) liked") == "sticker: liked=1\nOK\n")
        #expect(await c.send("sticker list song \(Self.uri)") == "sticker: liked=1\nOK\n")
        #expect(await c.send("sticker set song \(Self.uri) liked no") == "OK\n")
        #expect(!fixture.server.likedSongIDs.contains(Self.song))
        #expect(await c.send("sticker get song \(Self.uri) liked") == "ACK [50@0] {sticker} no such sticker: \"liked\"\n")
        #expect(await c.send("sticker set song \(Self.uri) liked TRUE") == "OK\n")
        #expect(await c.send("sticker delete song \(Self.uri) liked") == "OK\n")
        #expect(!fixture.server.likedSongIDs.contains(Self.song))
        #expect(await c.send("sticker delete song \(Self.uri) liked") == "ACK [50@0] {sticker} no such sticker: \"liked\"\n")
        #expect(fixture.server.requests(for: "/api/radio/like").count == 4)
    }

    @Test func aValueThatIsNotAFlagIsRefusedBeforeNetEaseHearsOfIt() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker set song \(Self.uri) liked maybe") == """
            ACK [2@0] {sticker} the sticker liked of a NetEase song is 1 or 0 (or true/false, yes/no), not "maybe"

            """)
        #expect(await c.send("sticker set song \(Self.uri) disliked 2") == """
            ACK [2@0] {sticker} the sticker disliked of a NetEase song is 1 or 0 (or true/false, yes/no), not "2"

            """)
        // `inc` works while the result is still a flag.
        #expect(await c.send("sticker inc song \(Self.uri) liked 1") == "OK\n")
        #expect(fixture.server.likedSongIDs.first == Self.song)
        #expect(await c.send("sticker inc song \(Self.uri) liked 1") == """
            ACK [2@0] {sticker} the sticker liked of a NetEase song is 1 or 0 (or true/false, yes/no), not "2"

            """)
        #expect(await c.send("sticker dec song \(Self.uri) liked 1") == "OK\n")
        #expect(!fixture.server.likedSongIDs.contains(Self.song))
        #expect(fixture.server.requests(for: "/api/radio/like").count == 2)
        #expect(fixture.server.requests(for: "/api/radio/trash/add").isEmpty)
    }

    /// After a sync the likes are read from the synced `Liked` folder, and a like changes that folder at once.
    @Test func theSyncedLikedFolderFollowsALike() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        _ = c.takeIdle()
        fixture.server.clearLog()
        #expect(await c.send("sticker get song \(fixture.uri(5_000_021)) liked") == "sticker: liked=1\nOK\n")
        #expect(fixture.server.requests.isEmpty, "sent \(fixture.apiPaths)")

        #expect(await c.send("sticker set song \(Self.uri) liked 1") == "OK\n")
        #expect(c.takeIdle() == ["sticker", "database"])
        let liked = try await fixture.entries("NetEase/Liked").compactMap(\.song)
        expectSongs(liked, [Self.song] + fixture.demo.likedSongIDs, in: fixture)
        // Liking a liked song again keeps its place; nothing visible changes, so no `database`.
        #expect(await c.send("sticker set song \(fixture.uri(5_000_013)) liked 1") == "OK\n")
        #expect(c.takeIdle() == ["sticker"])
        #expect(try await fixture.entries("NetEase/Liked").compactMap(\.song).map(\.uri)
            == ([Self.song] + fixture.demo.likedSongIDs).map(fixture.uri))

        #expect(await c.send("sticker delete song \(fixture.uri(5_000_021)) liked") == "OK\n")
        #expect(!fixture.server.likedSongIDs.contains(5_000_021))
        #expect(try await fixture.entries("NetEase/Liked").compactMap(\.song).map(\.uri)
            == ([Self.song] + fixture.demo.likedSongIDs.filter { $0 != 5_000_021 }).map(fixture.uri))
        #expect(c.takeIdle() == ["sticker", "database"])
        // The folder is what the protocol shows.
        let listed = await c.send("lsinfo NetEase/Liked")
        #expect(listed.hasPrefix("file: \(Self.uri)\n"))
        #expect(!listed.contains("file: \(fixture.uri(5_000_021))\n"))
    }

    @Test func findListsTheLikedSongsBelowABase() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker set song \(Self.uri) liked 1") == "OK\n")
        let liked = ([Self.song] + fixture.demo.likedSongIDs).map(fixture.uri).sorted()
        let all = liked.map { "file: \($0)\nsticker: liked=1\n" }.joined() + "OK\n"
        #expect(await c.send("sticker find song \"\" liked") == all)
        #expect(await c.send("sticker find song NetEase liked") == all)
        #expect(await c.send("sticker find song NetEase/Liked liked") == all)
        #expect(await c.send("sticker find song \"\" liked = 1 window 0:2") ==
            liked.prefix(2).map { "file: \($0)\nsticker: liked=1\n" }.joined() + "OK\n")
        #expect(await c.send("sticker find song \"\" liked = 0") == "OK\n")
        // A playlist's folder: the liked songs it lists (通勤路上 🚇 holds 海风).
        #expect(await c.send("sticker find song \"NetEase/Playlists/通勤路上 🚇\" liked")
            == "file: \(Self.uri)\nsticker: liked=1\nOK\n")
        #expect(await c.send("sticker find song \"NetEase/Playlists/Late Night Mix\" liked") == "OK\n")
        #expect(await c.send("stickernames") == "name: liked\nOK\n")
    }

    /// Other names on NetEase songs are ordinary local stickers, with or without the song in the database.
    @Test func otherStickersOnNetEaseSongsAreLocal() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker set song \(Self.uri) rating 5") == "OK\n")
        #expect(await c.send("sticker set song \(Self.uri) liked 1") == "OK\n")
        #expect(await c.send("sticker get song \(Self.uri) rating") == "sticker: rating=5\nOK\n")
        #expect(await c.send("sticker list song \(Self.uri)") == "sticker: liked=1\nsticker: rating=5\nOK\n")
        #expect(await c.send("sticker find song \"\" rating") == "file: \(Self.uri)\nsticker: rating=5\nOK\n")
        #expect(fixture.server.requests(for: "/api/radio/like").count == 1)
        // Deleting every sticker of the song unlikes it too.
        #expect(await c.send("sticker delete song \(Self.uri)") == "OK\n")
        #expect(!fixture.server.likedSongIDs.contains(Self.song))
        #expect(await c.send("sticker list song \(Self.uri)") == "OK\n")
        // Local songs still need to be in the database, as in MPD.
        #expect(await c.send("sticker set song nope.flac rating 5") == "ACK [50@0] {sticker} No such song\n")
        #expect(await c.send("sticker set song netease://album/3003 rating 5") == "ACK [50@0] {sticker} No such song\n")
    }

    @Test func aDislikeGoesToTheFMTrashAndIsKept() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker set song \(Self.uri) disliked 1") == "OK\n")
        let trash = fixture.server.requests(for: "/api/radio/trash/add")
        #expect(trash.count == 1)
        #expect((trash.first?.params["songId"] as? NSNumber)?.intValue == Self.song)
        #expect(c.disliked.all == [Self.uri])
        #expect(await c.send("sticker get song \(Self.uri) disliked") == "sticker: disliked=1\nOK\n")
        #expect(c.takeIdle() == ["sticker"])
        // Taking it back is local: NetEase has no "untrash".
        #expect(await c.send("sticker set song \(Self.uri) disliked 0") == "OK\n")
        #expect(fixture.server.requests(for: "/api/radio/trash/add").count == 1)
        #expect(await c.send("sticker get song \(Self.uri) disliked") == "sticker: disliked=0\nOK\n")
        #expect(c.disliked.all == [Self.uri])
    }

    @Test func failuresAnswerNetEaseErrorsAndChangeNothing() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        _ = c.takeIdle()
        fixture.server.inject(.code(-460), for: "/api/radio/like")
        let answer = await c.send("sticker set song \(Self.uri) liked 1")
        #expect(answer.hasPrefix("ACK [52@0] {sticker} NetEase: request refused as coming from a risky network (-460"))
        #expect(!fixture.server.likedSongIDs.contains(Self.song))
        #expect(try await fixture.entries("NetEase/Liked").compactMap(\.song).map(\.uri)
            == fixture.demo.likedSongIDs.map(fixture.uri))
        #expect(!c.takeIdle().contains("database"))
        fixture.server.inject(.code(-460), for: "/api/radio/trash/add")
        #expect(await c.send("sticker set song \(Self.uri) disliked 1").hasPrefix("ACK [52@0] {sticker} NetEase: "))
        #expect(await c.send("sticker get song \(Self.uri) disliked") == "ACK [50@0] {sticker} no such sticker: \"disliked\"\n")
        #expect(c.disliked.all.isEmpty)
    }

    @Test func aGuestLikesNothingAndCannotLike() async throws {
        let fixture = try Fixture(loggedIn: false)
        let c = await ProtocolClient(fixture)
        #expect(await c.send("sticker get song \(Self.uri) liked") == "ACK [50@0] {sticker} no such sticker: \"liked\"\n")
        #expect(await c.send("sticker find song \"\" liked") == "OK\n")
        #expect(await c.send("sticker set song \(Self.uri) liked 1")
            == "ACK [52@0] {sticker} NetEase: login required (301), run `nosignal login`\n")
        #expect(fixture.server.requests(for: "/api/radio/like").isEmpty)
    }
}
