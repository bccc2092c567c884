extension PlayerState {
    /// The reducer: synchronous and pure. Applies `action` to `partition` and returns the effects to run.
    public mutating func reduce(_ action: Action, in partition: String) throws(PlayerError) -> [Effect] {
        try update(partition) { (p: inout PartitionState) throws(PlayerError) -> [Effect] in
            switch action {
            case .setRepeat(let on):
                p.options.repeat = on
            case .setRandom(let on):
                p.options.random = on
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
                guard p.volume != nil else { throw .noMixer }
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
            }
            return [.persistState]
        }
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
        }
        return result
    }
}
