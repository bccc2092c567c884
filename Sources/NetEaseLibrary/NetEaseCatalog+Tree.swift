import Foundation
import Library
import Logging
import NetEase
import PlayerCore
import ServerPorts

/// The virtual directory, asked live. Everything here blocks; callers run it through `call`.
extension NetEaseCatalog {
    /// The folders below `NetEase/`, in the order `lsinfo` shows them.
    enum Folder: String, CaseIterable {
        case daily = "Daily"
        case liked = "Liked"
        case playlists = "Playlists"
        case albums = "Albums"
        case artists = "Artists"
        case cloud = "Cloud"
        case charts = "Charts"
        case recent = "Recent"
    }

    /// One level of the tree: named subdirectories (each standing for a playlist, album or artist) and songs.
    struct Listing: Sendable {
        struct Child: Sendable {
            var name: String
            var reference: NetEaseReference?
            var lastModified: Int64?
        }

        var children: [Child] = []
        var songs: [Song] = []
    }

    /// The live listing of a directory below the root; nil when there is no such directory.
    func listing(_ path: [String]) throws(NetEaseError) -> Listing? {
        guard let first = path.first else {
            return Listing(children: Folder.allCases.map { Listing.Child(name: $0.rawValue) })
        }
        guard let folder = Folder(rawValue: first) else { return nil }
        if path.count == 1 { return try service.remembered("list \(folder.rawValue)") { () throws(NetEaseError) in try folderListing(folder) } }
        guard path.count == 2, let parent = try listing([first]),
              let child = parent.children.first(where: { $0.name == path[1] }), let reference = child.reference
        else { return nil }
        return Listing(songs: try songs(of: reference))
    }

    private func folderListing(_ folder: Folder) throws(NetEaseError) -> Listing {
        switch folder {
        case .daily:
            // Today's songs, and today's recommended playlists (推荐歌单) as folders.
            return Listing(children: Self.children(try recommendedPlaylists().map { ($0.name, .playlist($0.id), nil) }),
                           songs: try songs(of: .daily))
        case .liked:
            return Listing(songs: try likedSongs())
        case .playlists:
            return Listing(children: Self.children(try ownPlaylists().map {
                ($0.name, .playlist($0.id), $0.updateTime.map { $0 / 1000 })
            }))
        case .albums:
            let albums = try pages { (page) throws(NetEaseError) in
                let list = try service.send(AlbumEndpoints.Subscribed(page: page))
                return (list.items, list.hasMore)
            }
            return Listing(children: Self.children(albums.map { album in
                let artist = album.artists.compactMap(\.name).first
                return (artist.map { "\($0) - \(album.name)" } ?? album.name, .album(album.id), nil)
            }))
        case .artists:
            let artists = try pages { (page) throws(NetEaseError) in
                let list = try service.send(ArtistEndpoints.Subscribed(page: page))
                return (list.items, list.hasMore)
            }
            return Listing(children: Self.children(artists.map { ($0.name, .artist($0.id), nil) }))
        case .cloud:
            let entries = try pages { (page) throws(NetEaseError) in
                let list = try service.send(UserEndpoints.Cloud(page: page))
                return (list.entries, list.hasMore)
            }
            return Listing(songs: service.remember(entries.map(\.song)))
        case .charts:
            _ = try service.account()
            let charts = try service.send(PlaylistEndpoints.Toplist()).list
            return Listing(children: Self.children(charts.map {
                ($0.name, .playlist($0.id), $0.updateTime.map { $0 / 1000 })
            }))
        case .recent:
            let entries = try service.send(UserEndpoints.Record(userID: try service.userID(), period: .week)).entries
            return Listing(songs: service.remember(entries.map(\.song)))
        }
    }

    /// Every page of a paged list, up to 20 pages (a server that always says "more" cannot loop forever).
    private func pages<T>(_ fetch: (NetEasePage) throws(NetEaseError) -> (items: [T], more: Bool))
        throws(NetEaseError) -> [T]
    {
        var all: [T] = []
        for number in 0..<20 {
            let page = NetEasePage(limit: 100, offset: number * 100)
            let (items, more) = try fetch(page)
            all += items
            if !more || items.isEmpty { break }
        }
        return all
    }

    /// The songs a reference stands for, tagged, in order.
    func songs(of reference: NetEaseReference) throws(NetEaseError) -> [Song] {
        try service.remembered("songs \(reference.uri)") { () throws(NetEaseError) in
            switch reference {
            case .song(let id):
                return service.remember(try service.gated { () throws(NetEaseError) in try service.client.songDetails(ids: [id]) })
            case .playlist(let id):
                _ = try service.account()
                return service.remember(try service.gated { () throws(NetEaseError) in try service.client.playlistTracks(id: id).songs })
            case .album(let id):
                _ = try service.account()
                let answer = try service.send(AlbumEndpoints.Album(id: id))
                // Album pages leave the cover out of each song's `al`.
                return service.remember(answer.songs.map { song in
                    var song = song
                    if song.coverURL == nil, song.album != nil { song.album?.coverURL = answer.album.coverURL }
                    return song
                })
            case .artist(let id):
                _ = try service.account()
                return service.remember(try service.send(ArtistEndpoints.TopSongs(id: id)).songs)
            case .daily:
                _ = try service.userID()
                return service.remember(try service.send(RecommendEndpoints.Songs()).songs)
            case .fm, .heartbeat:
                // A source, not a list: one queue entry that fills in songs before itself as it plays.
                _ = try service.userID()
                return [NetEaseRadio.marker(reference)]
            }
        }
    }

    /// Today's recommended playlists (logged in only).
    func recommendedPlaylists() throws(NetEaseError) -> [NetEasePlaylist] {
        _ = try service.userID()
        return try service.send(RecommendEndpoints.Resource()).playlists
    }

    /// The liked songs (红心), newest first as NetEase keeps them.
    func likedSongs() throws(NetEaseError) -> [Song] {
        let ids = try service.send(SongEndpoints.LikeList(userID: try service.userID())).ids
        return service.remember(try service.gated { () throws(NetEaseError) in try service.client.songDetails(ids: ids) })
    }

    /// The user's own and subscribed playlists, without the liked-songs one (that is `Liked`).
    func ownPlaylists() throws(NetEaseError) -> [NetEasePlaylist] {
        let user = try service.userID()
        return try service.gated { () throws(NetEaseError) in try service.client.allUserPlaylists(userID: user) }
            .filter { !$0.isLikedSongs(of: user) }
    }

    /// Directory names from titles: a `/` would split the path, so it becomes the full-width `／`; line breaks
    /// become spaces; a repeated name gets ` (2)`, ` (3)` ….
    static func children(_ items: [(name: String, reference: NetEaseReference, lastModified: Int64?)])
        -> [Listing.Child]
    {
        uniqueNames(items.map(\.name)).enumerated().map { index, name in
            Listing.Child(name: name, reference: items[index].reference, lastModified: items[index].lastModified)
        }
    }

    static func uniqueNames(_ names: [String]) -> [String] {
        var used = Set<String>()
        return names.map { raw in
            var name = raw.replacingOccurrences(of: "/", with: "／")
                .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
                .trimmingCharacters(in: .whitespaces)
            if name.isEmpty || name == "." || name == ".." { name = "Untitled" }
            var candidate = name
            var number = 2
            while used.contains(candidate) {
                candidate = "\(name) (\(number))"
                number += 1
            }
            used.insert(candidate)
            return candidate
        }
    }

    // MARK: Database entries

    /// `lsinfo`/`listall(info)` of a path in the virtual directory (the root itself included): synced directories
    /// from the database, the rest live. Recursion goes live only below a folder the client named; from the root
    /// it shows what is synced, so `listall` never sends a burst of requests.
    ///
    /// `listing` (browsing, not adding): a folder NetEase cannot list now (unreachable, login needed, rate limited)
    /// lists what is synced of it, or nothing, and the failure is logged, so a client that walks the tree at every
    /// start (Cantata) gets no error for a NetEase it cannot reach. Browsing still asks NetEase each time (a
    /// refused connection fails at once), so a listing is whole again as soon as NetEase answers. Adding a folder
    /// (`listing` false) fails instead: it cannot be answered without NetEase.
    func entries(uri: String, recursive: Bool, listing: Bool = false) throws -> [LibraryEntry] {
        var entries: [LibraryEntry] = []
        if recursive { entries.append(.directory(path: uri, lastModified: nil)) }
        try walk(uri, recursive: recursive, live: !components(uri).isEmpty, lenient: listing, into: &entries)
        return entries
    }

    private func walk(_ uri: String, recursive: Bool, live: Bool, lenient: Bool = false,
                      into entries: inout [LibraryEntry]) throws {
        let path = components(uri)
        // The root's folders are fixed; synced contents come from the database.
        if !path.isEmpty, let library, let synced = try library.remoteEntries(path: uri, recursive: recursive) {
            // `remoteEntries(recursive:)` starts with the directory itself, which the caller already wrote.
            if recursive, case .directory(uri, _)? = synced.first {
                entries += synced.dropFirst()
            } else {
                entries += synced
            }
            return
        }
        guard path.isEmpty || live else { return }
        let found: Listing?
        do throws(NetEaseError) {
            found = try listing(path)
        } catch {
            guard lenient else { throw error }
            logger.warning("NetEase: cannot list \(uri): \(error); listed what is synced")
            return
        }
        guard let listing = found else { throw PortError.notFound("No such directory") }
        entries += listing.songs.map(LibraryEntry.song)
        for child in listing.children {
            let childURI = uri + "/" + child.name
            entries.append(.directory(path: childURI, lastModified: child.lastModified))
            if recursive { try walk(childURI, recursive: true, live: live, lenient: lenient, into: &entries) }
        }
    }
}
