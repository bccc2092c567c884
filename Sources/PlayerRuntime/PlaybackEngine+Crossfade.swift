import Glibc
import PlayerCore

/// What crossfading needs to know of the queued song before it starts — its length (when the queue does not
/// know it), `MIXRAMP_START` and ReplayGain in dB — read once per song by opening it (decoder thread only).
struct NextSongFacts {
    var duration: Double?
    var start: String?
    var gainDB: Double
}

// MARK: Crossfade and MixRamp (decoder thread)

extension PlaybackEngine {
    /// MPD crossfades only songs of at least 20 s (`CrossFadeSettings::MIN_TOTAL_TIME`).
    static let minimumCrossfadeSong: Double = 20

    /// With crossfade on and a song of known length: how many bytes remain before the fade begins (0: now).
    /// nil when there is no crossfade, or the fade point has passed (a seek into the last seconds).
    func crossfadeStart(of song: SongStream) -> (bytesUntil: Int, Void)? {
        // MixRamp figures come from tags and may say anything (`inf`, `nan`): only a finite overlap fades.
        guard let seconds = crossfadeSeconds(after: song), seconds.isFinite, let end = song.endTime else { return nil }
        let remaining = end - song.time
        guard remaining > 0, remaining.isFinite else { return nil }
        guard remaining > seconds else { return (0, ()) }
        let frames = Int(saturating: ((remaining - seconds) * Double(song.format.sampleRate)).rounded())
        return frames == 0 ? (0, ()) : (frames * song.format.bytesPerFrame, ())
    }

    /// How long the current song and the queued one overlap (`CrossFadeSettings::Calculate`): nothing unless
    /// `crossfade` is on and both songs are at least 20 s and longer than it; with `mixrampdelay` and MixRamp tags
    /// on both songs, the overlap where the old song's end and the new song's start cross `mixrampdb`, minus the
    /// delay; otherwise the crossfade time.
    private func crossfadeSeconds(after song: SongStream) -> Double? {
        let options = lock.withLock { self.options }
        let seconds = options.crossfade
        guard seconds > 0, let current = song.duration, current >= Self.minimumCrossfadeSong, seconds < current,
              let next = lock.withLock({ queued.flatMap { $0.borderPause ? nil : $0.item } })
        else { return nil }
        let delay = Double(options.mixrampDelay)
        let needsFacts = next.song.duration == nil || delay > 0
        let facts = needsFacts ? nextSongFacts(next) : nil
        guard let nextDuration = next.song.duration ?? facts?.duration, nextDuration >= Self.minimumCrossfadeSong,
              seconds < nextDuration else { return nil }
        guard delay > 0, let end = song.decoder.mixRampEnd, let facts, let start = facts.start else { return seconds }
        let incoming = MixRamp.overlap(start, at: Double(options.mixrampDB) - facts.gainDB)
        let outgoing = MixRamp.overlap(end, at: Double(options.mixrampDB) - song.gainDB)
        guard let incoming, let outgoing, delay <= incoming + outgoing else { return nil }
        return incoming + outgoing - delay
    }

    private func nextSongFacts(_ item: PlaybackItem) -> NextSongFacts? {
        if let cache = nextSongCache, cache.id == item.id { return cache.facts }
        var facts: NextSongFacts?
        if let decoder = try? decoders.open(locate(item.song)) {
            let gain = PCMScaling.replayGainFactor(decoder.replayGain, mode: effectiveReplayGainMode(),
                                                   settings: settings.replayGain)
            let duration = item.range.map { ($0.end ?? decoder.duration ?? 0) - $0.start } ?? decoder.duration
            facts = NextSongFacts(duration: duration, start: decoder.mixRampStart, gainDB: 20 * log10(max(gain, 1e-9)))
        }
        nextSongCache = (item.id, facts)
        return facts
    }

    /// With `crossfade` > 0, once the current song is within that many seconds of its end, takes the queued song
    /// and opens it — if it has the same format (MPD crossfades only then) and single mode does not pause there.
    func startCrossfade(after song: SongStream, epoch: Int) -> (stream: SongStream, job: DecodeJob)? {
        let taken: (item: PlaybackItem, borderPause: Bool)? = lock.withLock {
            guard epoch == decoderEpoch, let queued, !queued.borderPause else { return nil }
            self.queued = nil
            openingQueued = queued.item.id
            return queued
        }
        guard let taken else { return nil }
        let job = DecodeJob(item: taken.item, seek: nil, epoch: epoch, queued: true, borderPause: false)
        let stream = try? SongStream(item: job.item, seek: nil, decoders: decoders, converters: converters,
                                     outputFormat: settings.outputFormat,
                                     gain: { PCMScaling.replayGainFactor($0, mode: self.effectiveReplayGainMode(),
                                                                         settings: self.settings.replayGain) },
                                     location: locate(job.item.song))
        guard let stream, stream.format == song.format else {
            // No crossfade after all: the song follows gaplessly (and reports its own error if it is broken).
            lock.withLock {
                if epoch == decoderEpoch && self.queued == nil && openingQueued == taken.item.id {
                    self.queued = taken
                    openingQueued = nil
                }
            }
            return nil
        }
        return (stream, job)
    }
}
