import Dispatch
import Foundation
import Logging
import NetEase
import PlayerCore
import PlayerRuntime
import Synchronization

/// Personal FM (`netease://fm`) and heartbeat mode (`netease://heartbeat`) as never-ending queue entries. The entry
/// stays at its place; songs appear before it, a batch at a time, just before playback reaches it:
/// - when the entry becomes the song after the current one (the player's `prepare` hint, as the song before it
///   starts), the next batch is inserted before it, so the player queues a real song and the border is gapless;
/// - when the player reaches the entry anyway (played directly, or the insertion came too late), the batch is
///   inserted and playback moves to its first song.
/// The batch after is fetched as soon as one is inserted, so the next arrival needs no request.
public final class NetEaseRadio: Sendable {
    let service: NetEaseService
    private let store: PlayerStore
    private let partition: String
    /// One fill at a time: the hint and the player may both ask for the same entry.
    private let filling = Mutex<Void>(())
    private let prefetched = Mutex<[NetEaseReference: [Song]]>([:])

    public init(service: NetEaseService, store: PlayerStore, partition: String = PlayerState.defaultPartition) {
        self.service = service
        self.store = store
        self.partition = partition
    }

    /// The queue entry standing for a radio (tags so clients show something sensible).
    static func marker(_ reference: NetEaseReference) -> Song {
        let title = reference == .heartbeat ? "Heartbeat Mode (心动模式)" : "Personal FM (私人FM)"
        return Song(uri: reference.uri, tags: [Song.Tag("Title", title), Song.Tag("Name", "NetEase \(title)")])
    }

    /// The player's hint that `location` is the queued next entry: fill it now, off the player's locks.
    public func prepare(_ location: String) {
        guard let reference = NetEaseReference(location), reference.isRadio else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do { try fill(reference) } catch {
                service.logger.warning("NetEase \(reference.uri): \(error)")
            }
        }
    }

    /// The player reached the entry (decoder thread). Throws when no songs could be had; otherwise the queue has
    /// moved on and the player's next instruction replaces this song.
    public func reached(_ location: String) throws(DecoderError) {
        guard let reference = NetEaseReference(location), reference.isRadio else {
            throw DecoderError("Failed to open \"\(location)\": not a NetEase radio")
        }
        do { try fill(reference) } catch {
            service.logger.warning("NetEase \(location): \(error)")
            throw DecoderError("Failed to open \"\(location)\": NetEase: \(error)", cause: "NetEase: \(error)")
        }
    }

    /// Inserts a batch before the entry when it is the current or the next song; nothing when a fill already
    /// did (the entry is no longer next).
    private func fill(_ reference: NetEaseReference) throws(NetEaseError) {
        try filling.withLock { _ throws(NetEaseError) in
            // Only the entry the player stands on, or the one it queued next, is filled; otherwise a fill already
            // happened (or the queue changed) and there is nothing to do.
            guard let place = place(of: reference.uri) else { return }
            let songs = try batch(reference, seed: place.previousSong)
            guard !songs.isEmpty else { throw NetEaseError.malformedResponse("NetEase sent no songs") }
            let ids: [Int]
            do {
                ids = try store.send(.add(songs, at: place.position), partition: partition).addedIDs
                if place.isCurrent, let first = ids.first { try store.send(.playID(first), partition: partition) }
            } catch {
                service.logger.warning("NetEase \(reference.uri): cannot add songs to the queue: \(error)")
                return
            }
            service.logger.info("NetEase \(reference.uri): \(ids.count) songs added before it")
            prefetch(reference, seed: songs.last)
        }
    }

    /// Where the entry is relative to playback.
    private struct Place {
        var position: Int
        var isCurrent: Bool
        /// The song just before the entry (heartbeat mode's seed).
        var previousSong: Song?
    }

    private func place(of uri: String) -> Place? {
        guard let state = store.partition(partition), let current = state.player.currentOrder,
              current < state.queue.order.count else { return nil }
        let queue = state.queue
        let currentPosition = queue.order[current]
        let previous = { (position: Int) -> Song? in position > 0 ? queue.items[position - 1].song : nil }
        if queue.items[currentPosition].song.uri == uri {
            return Place(position: currentPosition, isCurrent: true, previousSong: previous(currentPosition))
        }
        guard current + 1 < queue.order.count else { return nil }
        let next = queue.order[current + 1]
        guard queue.items[next].song.uri == uri else { return nil }
        return Place(position: next, isCurrent: false, previousSong: previous(next))
    }

    /// The prefetched batch, or a new one.
    private func batch(_ reference: NetEaseReference, seed: Song?) throws(NetEaseError) -> [Song] {
        if let ready = prefetched.withLock({ $0.removeValue(forKey: reference) }), !ready.isEmpty { return ready }
        return try fetch(reference, seed: seed)
    }

    private func prefetch(_ reference: NetEaseReference, seed: Song?) {
        DispatchQueue.global(qos: .utility).async { [self] in
            guard let songs = try? fetch(reference, seed: seed) else { return }
            prefetched.withLock { $0[reference] = songs }
        }
    }

    /// Three FM songs; or the intelligence list (heartbeat) seeded by `seed` (a NetEase song) or a liked song.
    private func fetch(_ reference: NetEaseReference, seed: Song?) throws(NetEaseError) -> [Song] {
        let user = try service.userID()
        switch reference {
        case .heartbeat:
            let liked = try service.likedPlaylistID(user: user)
            var seedID = seed.flatMap { NetEaseURI.songID($0.uri) }
            if seedID == nil {
                seedID = try service.send(SongEndpoints.LikeList(userID: user)).ids.randomElement()
            }
            guard let seedID else { throw NetEaseError.malformedResponse("heartbeat mode needs a liked song to start from") }
            let songs = try service.send(RecommendEndpoints.Intelligence(songID: seedID, playlistID: liked)).songs
            return Array(service.remember(songs).prefix(3))
        default:
            return service.remember(try service.send(RecommendEndpoints.PersonalFM()).songs)
        }
    }
}

extension NetEaseService {
    /// The id of the user's liked-songs playlist (heartbeat mode's `playlistId`).
    func likedPlaylistID(user: Int64) throws(NetEaseError) -> Int64 {
        try remembered("liked playlist \(user)") { () throws(NetEaseError) in
            let playlists = try gated { () throws(NetEaseError) in try client.allUserPlaylists(userID: user) }
            guard let liked = playlists.first(where: { $0.isLikedSongs(of: user) }) else {
                throw NetEaseError.malformedResponse("the account has no liked-songs playlist")
            }
            return liked.id
        }
    }
}
