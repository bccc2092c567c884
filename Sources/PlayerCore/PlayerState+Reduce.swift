extension PlayerState {
    /// The reducer: synchronous and pure. Applies `action` to `partition` and returns the effects to run.
    public mutating func reduce(_ action: Action, in partition: String) throws(PlayerError) -> [Effect] {
        switch action {
        case .newPartition(let name):
            guard self[partition: name] == nil else { throw .partitionExists(name) }
            let model = partitions[0]
            partitions.append(PartitionState(name: name, maximumQueueLength: model.queue.maximumLength))
            return [.openPartition(name)]
        case .deletePartition(let name):
            guard name != Self.defaultPartition else { throw .denied("cannot delete the default partition") }
            let index = try index(of: name)
            partitions.remove(at: index)
            return [.stopPlayback(partition: name), .closePartition(name)]
        case .announce(let changes):
            return changes.sorted { "\($0)" < "\($1)" }.map { .announce($0) }
        case .addOutput(let output):
            partitions[0].outputs.append(.live(output))
            return []
        case .moveOutput(let name):
            return try moveOutput(name, to: partition)
        case .outputFailed(let name):
            outputFailed(name)
            return []
        case .setOutputEnabled(let id, let on):
            return try update(partition) { (p: inout PartitionState) throws(PlayerError) -> [Effect] in
                try p.setOutput(id, enabled: on, partition: partition)
            }
        case .setOutputAttribute(let id, let name, let value):
            return try update(partition) { (p: inout PartitionState) throws(PlayerError) -> [Effect] in
                try p.setOutputAttribute(id, name: name, value: value)
                // MPD announces `output` even when the value was already set.
                return [.announce(Change(.outputs))]
            }
        default:
            break
        }
        return try update(partition) { (p: inout PartitionState) throws(PlayerError) -> [Effect] in
            var effects = try Self.apply(action, to: &p, in: partition)
            effects += p.syncEngine(partition)
            return effects
        }
    }

    private static func apply(_ action: Action, to p: inout PartitionState, in partition: String) throws(PlayerError)
        -> [Effect]
    {
        switch action {
        case .setRepeat(let on):
            p.options.repeat = on
        case .setRandom(let on):
            p.setRandom(on)
        case .setSingle(let mode):
            p.options.single = mode
        case .setConsume(let mode):
            p.options.consume = mode
        case .setCrossfade(let seconds):
            p.options.crossfade = seconds
            return [.announce(Change(.options, partition: partition)), .persistState]
        case .setMixrampDB(let db):
            p.options.mixrampDB = db
            return [.announce(Change(.options, partition: partition)), .persistState]
        case .setMixrampDelay(let seconds):
            p.options.mixrampDelay = seconds
            return [.announce(Change(.options, partition: partition)), .persistState]
        case .setReplayGainMode(let mode):
            p.options.replayGainMode = mode
            return [.announce(Change(.options, partition: partition)), .persistState]
        case .setVolume(let volume):
            guard p.volume != nil else { throw .failed("No mixer") }
            p.volume = volume
            return [.applyVolume(partition: partition, volume: volume),
                    .announce(Change(.mixer, partition: partition)), .persistState]
        case .changeVolume(let delta):
            guard let old = p.volume else { throw .noMixer }
            let new = min(100, max(0, old + delta))
            guard new != old else { return [] }
            p.volume = new
            return [.applyVolume(partition: partition, volume: new), .persistState]
        case .clearError:
            p.player.error = nil
            return []
        case .add(let songs, let position, let bulk):
            let ids = try p.add(songs, at: position, bulk: bulk)
            return [.added(ids: ids), .persistState]
        case .load(let songs, let position, let name, let ranges):
            let ids = try p.add(songs, at: position, bulk: true, moveInBulk: true)
            // The songs keep their ranges as `playlist::AppendSong` keeps a `DetachedSong`'s start and end.
            for (id, range) in zip(ids, ranges) {
                if let range, let at = p.queue.position(ofID: id) { p.queue.items[at].range = range }
            }
            // `playlist_load_into_queue` names the playlist once all its songs are in (0.24 `lastloadedplaylist`).
            if let name, ids.count == songs.count { p.lastLoadedPlaylist = name }
            return [.added(ids: ids), .persistState]
        case .delete(let start, let end):
            try p.delete(start, end)
        case .deleteID(let id):
            try p.delete(id: id)
        case .move(let start, let end, let to):
            try p.move(start, end, to: to)
        case .swap(let a, let b):
            try p.swap(a, b)
        case .swapIDs(let a, let b):
            try p.swap(ids: a, b)
        case .shuffle(let start, let end):
            try p.shuffle(start, end)
        case .clear:
            p.clear()
        case .setPriority(let priority, let start, let end):
            try p.setPriority(priority, start, end)
        case .setPriorityID(let priority, let id):
            try p.setPriority(priority, id: id)
        case .setSongRange(let id, let start, let end):
            try p.setRange(id: id, start: start, end: end)
        case .addTag(let id, let name, let value):
            try p.editTags(id: id) { $0.append(Song.Tag(name, value)) }
        case .clearTags(let id, let name):
            try p.editTags(id: id) { tags in
                if let name { tags.removeAll { $0.name == name } } else { tags.removeAll() }
            }
        case .restore(let saved):
            p.options = saved.options
            p.options.random = false
            if p.volume != nil, let volume = saved.volume { p.volume = volume }
            p.restore(saved.queue, random: saved.options.random)
            p.lastLoadedPlaylist = saved.lastLoadedPlaylist
            // `playlist_state_restore`: a saved playing or paused state resumes where it was.
            if saved.playState != .stop, let position = p.currentPosition {
                try? p.seek(position: position, to: saved.elapsed ?? 0)
                if saved.playState == .pause { p.pause(true) }
            }
            return []
        case .play(let position):
            try p.play(position: position)
        case .playID(let id):
            try p.play(id: id)
        case .pause(let on):
            p.pause(on)
        case .stop:
            p.stop()
        case .next:
            try p.playNext()
        case .previous:
            try p.playPrevious()
        case .seek(let position, let seconds):
            try p.seek(position: position, to: seconds)
            return [.announce(Change(.player, partition: partition)), .persistState]
        case .seekID(let id, let seconds):
            try p.seek(id: id, to: seconds)
            return [.announce(Change(.player, partition: partition)), .persistState]
        case .seekCurrent(let seconds, let relative, let elapsed):
            try p.seekCurrent(to: seconds, relative: relative, elapsed: elapsed)
            return [.announce(Change(.player, partition: partition)), .persistState]
        case .engineStartedSong(let token, let id):
            p.engineStartedSong(token: token, id: id)
        case .engineStopped(let token, let error):
            p.engineStopped(token: token, error: error)
        case .engineTags(let token, let id, let tags):
            guard token == p.engine.token, let position = p.queue.position(ofID: id),
                  p.queue.items[position].song.isRemote else { return [] }
            try p.editTags(id: id) { current in
                for tag in tags {
                    current.removeAll { $0.name == tag.name }
                    current.append(tag)
                }
            }
            return []
        case .newPartition, .deletePartition, .announce, .addOutput, .moveOutput, .outputFailed, .setOutputEnabled,
             .setOutputAttribute:
            return []
        case .outputsUnavailable(let message):
            guard p.isPlaying else { return [] }
            p.player.state = .pause
            p.player.error = message
        }
        return [.persistState]
    }

    /// What differs between `old` and `self`, partition by partition. The one place that derives changes from state.
    public func changes(since old: PlayerState) -> Set<Change> {
        var result = Set<Change>()
        if old.partitions.map(\.name) != partitions.map(\.name) { result.insert(Change(.partitions)) }
        for new in partitions {
            guard let before = old[partition: new.name] else { continue }
            let name = new.name
            if before.options != new.options { result.insert(Change(.options, partition: name)) }
            if before.volume != new.volume { result.insert(Change(.mixer, partition: name)) }
            if before.queue.version != new.queue.version { result.insert(Change(.queue, partition: name)) }
            if before.player != new.player { result.insert(Change(.player, partition: name)) }
            if before.outputs != new.outputs { result.insert(Change(.outputs)) }
        }
        return result
    }
}
