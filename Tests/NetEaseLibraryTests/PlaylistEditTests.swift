import FakeNetEase
import Foundation
import Library
import MPDProtocol
import NetEase
@testable import NetEaseLibrary
import PlayerCore
import Testing

/// Stored-playlist commands on `NetEase/<name>`: the user's own playlists change on NetEase (`playlist_tracks`,
/// `playlist_create`, `playlist_delete`) and the synced copy follows at once; subscribed ones refuse.
@Suite struct PlaylistEditTests {
    static let commute = 2_000_000_001
    static let mix = 2_000_000_002
    /// 海风, in 通勤路上 🚇 but not in Late Night Mix.
    static let haifeng = 5_000_012
    static let subscribed = "全部的歌 · All the Songs"

    /// The `op` of every `playlist_tracks` request so far.
    static func operations(_ fixture: Fixture) -> [String] {
        fixture.server.requests(for: "/api/playlist/manipulate/tracks").compactMap { $0.params["op"] as? String }
    }

    static func tracks(_ fixture: Fixture, _ id: Int) -> [Int] { fixture.server.playlist(id)?.trackIDs ?? [] }

    /// `listplaylist`'s URIs.
    static func listed(_ c: ProtocolClient, _ name: String) async -> [String] {
        await c.send("listplaylist \"\(name)\"").split(separator: "\n").compactMap { line in
            line.hasPrefix("file: ") ? String(line.dropFirst(6)) : nil
        }
    }

    static func stored(_ fixture: Fixture, _ name: String) async throws -> [String] {
        try await fixture.entries("NetEase/Playlists/" + name).compactMap(\.song?.uri)
    }

    @Test func addingAtTheStartIsOneAdd() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        _ = c.takeIdle()
        let before = Self.tracks(fixture, Self.mix)
        #expect(await c.send("playlistadd \"NetEase/Late Night Mix\" netease://song/\(Self.haifeng) 0") == "OK\n")
        let expected = [Self.haifeng] + before
        #expect(Self.tracks(fixture, Self.mix) == expected)
        #expect(Self.operations(fixture) == ["add"])
        #expect(c.takeIdle() == ["stored_playlist", "database"])
        #expect(await Self.listed(c, "NetEase/Late Night Mix") == expected.map(fixture.uri))
        let songs = try await fixture.entries("NetEase/Playlists/Late Night Mix").compactMap(\.song)
        expectSongs(songs, expected, in: fixture)
    }

    @Test func appendingAddsThenPutsTheSongsInOrder() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        let before = Self.tracks(fixture, Self.mix)
        // An album: every song of it, at the end.
        #expect(await c.send("playlistadd \"NetEase/Late Night Mix\" netease://album/3001") == "OK\n")
        let expected = before + fixture.demo.albums[3001]!.songIDs
        #expect(Self.tracks(fixture, Self.mix) == expected)
        #expect(Self.operations(fixture) == ["add", "update"])
        #expect(try await Self.stored(fixture, "Late Night Mix") == expected.map(fixture.uri))
        // A song already there stays where it is: a NetEase playlist holds a song once.
        #expect(await c.send("playlistadd \"NetEase/Late Night Mix\" \(fixture.uri(before[0]))") == "OK\n")
        #expect(Self.tracks(fixture, Self.mix) == expected)
        #expect(Self.operations(fixture) == ["add", "update"])
    }

    @Test func deletingMovingAndClearing() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        var expected = Self.tracks(fixture, Self.mix)
        #expect(await c.send("playlistdelete \"NetEase/Late Night Mix\" 1:3") == "OK\n")
        expected.removeSubrange(1..<3)
        #expect(Self.tracks(fixture, Self.mix) == expected)
        #expect(Self.operations(fixture) == ["del"])
        #expect(try await Self.stored(fixture, "Late Night Mix") == expected.map(fixture.uri))

        #expect(await c.send("playlistmove \"NetEase/Late Night Mix\" 0 2") == "OK\n")
        expected.insert(expected.removeFirst(), at: 2)
        #expect(Self.tracks(fixture, Self.mix) == expected)
        #expect(Self.operations(fixture) == ["del", "update"])
        #expect(await Self.listed(c, "NetEase/Late Night Mix") == expected.map(fixture.uri))

        #expect(await c.send("playlistclear \"NetEase/通勤路上 🚇\"") == "OK\n")
        #expect(Self.tracks(fixture, Self.commute).isEmpty)
        #expect(Self.operations(fixture) == ["del", "update", "del"])
        #expect(await c.send("listplaylist \"NetEase/通勤路上 🚇\"") == "OK\n")
    }

    /// Without a sync the playlist is read live and remembered for a minute; an edit must not leave that answer.
    @Test func anUnsyncedPlaylistIsNotShownAsItWas() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        let before = Self.tracks(fixture, Self.mix)
        #expect(await Self.listed(c, "NetEase/Late Night Mix") == before.map(fixture.uri))
        #expect(await c.send("playlistadd \"NetEase/Late Night Mix\" netease://song/\(Self.haifeng) 0") == "OK\n")
        #expect(await Self.listed(c, "NetEase/Late Night Mix") == ([Self.haifeng] + before).map(fixture.uri))
        #expect(c.takeIdle() == ["stored_playlist"])
        #expect(try fixture.library.remoteDirectory(path: "NetEase/Playlists/Late Night Mix") == nil)
    }

    @Test func aSubscribedPlaylistCannotBeChanged() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        let refusal = "NetEase playlist \"\(Self.subscribed)\" is subscribed, not yours: it cannot be changed\n"
        #expect(await c.send("playlistadd \"NetEase/\(Self.subscribed)\" netease://song/\(Self.haifeng)")
            == "ACK [4@0] {playlistadd} " + refusal)
        #expect(await c.send("playlistdelete \"NetEase/\(Self.subscribed)\" 0") == "ACK [4@0] {playlistdelete} " + refusal)
        #expect(await c.send("playlistclear \"NetEase/\(Self.subscribed)\"") == "ACK [4@0] {playlistclear} " + refusal)
        #expect(await c.send("rm \"NetEase/\(Self.subscribed)\"") == "ACK [4@0] {rm} " + refusal)
        #expect(Self.operations(fixture).isEmpty)
        #expect(fixture.server.requests(for: "/api/playlist/remove").isEmpty)
        #expect(c.takeIdle().isEmpty)
    }

    @Test func onlyNetEaseSongsGoToNetEase() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("playlistadd \"NetEase/Late Night Mix\" http://radio.example/stream")
            == "ACK [2@0] {playlistadd} NetEase playlists hold only NetEase songs: \"http://radio.example/stream\" is not one\n")
        #expect(await c.send("add netease://song/\(Self.haifeng)") == "OK\n")
        #expect(await c.send("add http://radio.example/stream") == "OK\n")
        #expect(await c.send("save \"NetEase/Radio\"")
            == "ACK [2@0] {save} NetEase playlists hold only NetEase songs: \"http://radio.example/stream\" is not one\n")
        #expect(Self.operations(fixture).isEmpty)
        #expect(fixture.server.requests(for: "/api/playlist/create").isEmpty)
    }

    @Test func saveCreatesAPlaylistAndRmDeletesIt() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        #expect(await c.send("add netease://song/\(Self.haifeng)") == "OK\n")
        #expect(await c.send("add netease://album/3003") == "OK\n")
        let queue = [Self.haifeng] + fixture.demo.albums[3003]!.songIDs
        _ = c.takeIdle()
        #expect(await c.send("save \"NetEase/New list\"") == "OK\n")
        #expect(c.takeIdle() == ["stored_playlist", "database"])
        let id = try #require(fixture.server.ownPlaylistIDs.first { fixture.server.playlist($0)?.name == "New list" })
        #expect(Self.tracks(fixture, id) == queue)
        #expect(Self.operations(fixture) == ["add"])
        // First among the NetEase playlists, as NetEase lists a new one.
        let names = await c.send("listplaylists").split(separator: "\n").filter { $0.hasPrefix("playlist: NetEase/") }
        #expect(names.first == "playlist: NetEase/New list")
        #expect(await Self.listed(c, "NetEase/New list") == queue.map(fixture.uri))
        #expect(await c.send("save \"NetEase/New list\"") == "ACK [56@0] {save} Playlist already exists\n")
        // The next sync finds it where the edit put it.
        _ = try await fixture.sync()
        #expect(await c.send("listplaylists").split(separator: "\n").filter { $0.hasPrefix("playlist: NetEase/") }
            == names)

        #expect(await c.send("save \"NetEase/New list\" replace") == "OK\n")
        #expect(Self.tracks(fixture, id) == queue)
        #expect(await c.send("rm \"NetEase/New list\"") == "OK\n")
        #expect(fixture.server.playlist(id) == nil)
        #expect(!(await c.send("listplaylists")).contains("NetEase/New list"))
        #expect(try fixture.library.remoteDirectory(path: "NetEase/Playlists/New list") == nil)
        #expect(await c.send("rm \"NetEase/New list\"") == "ACK [50@0] {rm} No such playlist\n")
        #expect(await c.send("listplaylist \"NetEase/New list\"") == "ACK [50@0] {listplaylist} No such playlist\n")
    }

    @Test func namesAndRename() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("save \"NetEase/a/b\"") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("save \"NetEase/\"") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("save a/b") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await c.send("playlistclear \"NetEase/Nope\"") == "ACK [50@0] {playlistclear} No such playlist\n")
        #expect(await c.send("rename \"NetEase/Late Night Mix\" local")
            == "ACK [2@0] {rename} rename cannot move a playlist between NetEase and the local playlists\n")
    }

    /// `rename NetEase/<old> NetEase/<new>` renames the playlist on NetEase; the synced copy keeps its place.
    @Test func renamingAnOwnPlaylist() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        _ = c.takeIdle()
        let songs = try await Self.stored(fixture, "Late Night Mix")
        let names = await c.send("listplaylists").split(separator: "\n").filter { $0.hasPrefix("playlist: NetEase/") }
        #expect(await c.send("rename \"NetEase/Late Night Mix\" \"NetEase/Early Morning Mix\"") == "OK\n")
        #expect(fixture.server.playlist(Self.mix)?.name == "Early Morning Mix")
        #expect(c.takeIdle() == ["stored_playlist", "database"])
        let renamed = names.map { $0 == "playlist: NetEase/Late Night Mix" ? "playlist: NetEase/Early Morning Mix" : $0 }
        #expect(renamed != names)
        #expect(await c.send("listplaylists").split(separator: "\n").filter { $0.hasPrefix("playlist: NetEase/") }
            == renamed)
        #expect(try await Self.stored(fixture, "Early Morning Mix") == songs)
        #expect(await Self.listed(c, "NetEase/Early Morning Mix") == songs)
        #expect(await c.send("listplaylist \"NetEase/Late Night Mix\"")
            == "ACK [50@0] {listplaylist} No such playlist\n")
        // The next sync agrees, and the renamed playlist can be edited under its new name.
        _ = try await fixture.sync()
        #expect(try await Self.stored(fixture, "Early Morning Mix") == songs)
        #expect(await c.send("playlistclear \"NetEase/Early Morning Mix\"") == "OK\n")
        #expect(Self.tracks(fixture, Self.mix) == [])
    }

    @Test func renameRefusals() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.sync())
        let c = await ProtocolClient(fixture)
        #expect(await c.send("rename \"NetEase/Late Night Mix\" \"NetEase/通勤路上 🚇\"")
            == "ACK [56@0] {rename} Playlist already exists\n")
        #expect(await c.send("rename \"NetEase/\(Self.subscribed)\" \"NetEase/Mine now\"")
            == "ACK [4@0] {rename} NetEase playlist \"\(Self.subscribed)\" is subscribed, not yours: it cannot be changed\n")
        #expect(await c.send("rename \"NetEase/Nope\" \"NetEase/Still nope\"")
            == "ACK [50@0] {rename} No such playlist\n")
        #expect(await c.send("rename \"NetEase/Late Night Mix\" \"NetEase/a/b\"")
            == "ACK [2@0] {rename} Bad playlist name\n")
        #expect(fixture.server.requests(for: "/api/playlist/update/name").isEmpty)
        #expect(fixture.server.playlist(Self.mix)?.name == "Late Night Mix")
    }

    /// Without a synced copy the playlist is found by its new name in the live list (the remembered one is forgotten).
    @Test func renamingWithoutASync() async throws {
        let fixture = try Fixture()
        let c = await ProtocolClient(fixture)
        #expect(await c.send("rename \"NetEase/Late Night Mix\" \"NetEase/Early Morning Mix\"") == "OK\n")
        #expect(fixture.server.playlist(Self.mix)?.name == "Early Morning Mix")
        #expect(await Self.listed(c, "NetEase/Early Morning Mix") == Self.tracks(fixture, Self.mix).map(fixture.uri))
        #expect(await c.send("listplaylist \"NetEase/Late Night Mix\"")
            == "ACK [50@0] {listplaylist} No such playlist\n")
    }
}
