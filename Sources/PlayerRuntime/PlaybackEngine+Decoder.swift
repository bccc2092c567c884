import Logging
import MPDProtocol
import PlayerCore

/// What the decoder thread is asked to play: a song to start (`start`) or the queued one (`queueNext`).
struct DecodeJob {
    var item: PlaybackItem
    var seek: Double?
    var epoch: Int
    var queued = false
    var borderPause = false
}

// MARK: The decoder thread

extension PlaybackEngine {
    /// The decoder thread's body: waits for a job of the current epoch and decodes it (and the songs queued
    /// after it) without the lock.
    func decoderLoop() {
        lock.lock()
        while !shutDown {
            guard let job, job.epoch == decoderEpoch else {
                self.job = nil
                lock.wait()
                continue
            }
            self.job = nil
            openingQueued = job.queued ? job.item.id : nil
            lock.unlock()
            decode(job)
            lock.lock()
        }
        lock.unlock()
    }

    /// Decodes `job`'s song and then, while nothing interrupts, each queued song after it. With crossfade on,
    /// the queued song starts `crossfade` seconds before the current one ends and the two are mixed.
    private func decode(_ first: DecodeJob) {
        let epoch = first.epoch
        guard var song = open(first) else { return }
        var job = first
        var incoming: SongStream?
        var overlap: (start: Double, length: Double) = (0, 0)
        guard push(.songStart(songStart(song, job: job)), epoch: epoch) else { return }
        while true {
            var chunkBytes = max(song.format.bytesPerFrame,
                                 song.format.bytesPerSecond / 20 / song.format.bytesPerFrame * song.format.bytesPerFrame)
            if incoming == nil, let fade = crossfadeStart(of: song) {
                if fade.bytesUntil == 0 {
                    if let started = startCrossfade(after: song, epoch: epoch) {
                        incoming = started.stream
                        job = started.job
                        overlap = (song.time, max(0.001, (song.endTime ?? song.time) - song.time))
                        guard push(.songStart(songStart(started.stream, job: started.job)), epoch: epoch) else { return }
                    }
                } else {
                    // Stop the chunk exactly where the crossfade begins.
                    chunkBytes = min(chunkBytes, fade.bytesUntil)
                }
            }
            let piece: [UInt8]?
            do { piece = try song.read(upTo: chunkBytes) } catch {
                logger.error("failed to decode \(song.item.song.uri): \(error.message)")
                _ = push(.end(error: failure(song.item, error), failed: song.item.id), epoch: epoch)
                return
            }
            if let streamTags = song.decoder.takeStreamTags() { publish(streamTags, of: song.item, epoch: epoch) }
            if var pcm = piece {
                let time = song.time - song.format.seconds(ofBytes: pcm.count)
                var id = song.item.id
                var chunkTime = time
                var bitrate = song.bitrate
                if let incoming {
                    // Linear crossfade: the old song fades out while the new one fades in.
                    let mixed: [UInt8]
                    do { mixed = try incoming.read(exactly: pcm.count) } catch {
                        _ = push(.end(error: failure(incoming.item, error), failed: incoming.item.id), epoch: epoch)
                        return
                    }
                    let from = (time - overlap.start) / overlap.length
                    let to = (song.time - overlap.start) / overlap.length
                    PCMScaling.crossfade(&pcm, with: mixed, format: song.format.sampleFormat, from: from, to: to)
                    id = incoming.item.id
                    chunkTime = incoming.time - incoming.format.seconds(ofBytes: pcm.count)
                    bitrate = incoming.bitrate
                }
                let chunk = Chunk(data: pcm, format: song.format, sourceFormat: incoming?.source ?? song.source, id: id,
                                  time: chunkTime, duration: song.format.seconds(ofBytes: pcm.count), bitrate: bitrate)
                guard push(.audio(chunk), epoch: epoch) else { return }
                continue
            }

            // The song ended: the crossfaded song goes on, or the queued one starts, or playback ends.
            if let next = incoming {
                song = next
                incoming = nil
                continue
            }
            let next: DecodeJob? = lock.withLock {
                guard epoch == decoderEpoch else { return nil }
                if let queued {
                    self.queued = nil
                    openingQueued = queued.item.id
                    return DecodeJob(item: queued.item, seek: nil, epoch: epoch, queued: true,
                                     borderPause: queued.borderPause)
                }
                openingQueued = nil
                pipe.append(.end(error: nil))
                lock.broadcast()
                return nil
            }
            guard let next, let opened = open(next) else { return }
            job = next
            song = opened
            guard push(.songStart(songStart(song, job: job)), epoch: epoch) else { return }
        }
    }

    /// Tags that arrived inside a stream (an internet radio's title): the queue's song gets them (`currentsong`),
    /// and outputs that carry tags send them on.
    private func publish(_ streamTags: [Song.Tag], of item: PlaybackItem, epoch: Int) {
        let token: Int? = lock.withLock {
            guard epoch == decoderEpoch else { return nil }
            var merged = tags.flatMap { $0.id == item.id ? $0.tags : nil } ?? item.song.tags
            for tag in streamTags {
                merged.removeAll { $0.name == tag.name }
                merged.append(tag)
            }
            tagsVersion += 1
            tags = (item.id, merged, tagsVersion)
            return self.token
        }
        if let token { report(.engineTags(token: token, id: item.id, tags: streamTags)) }
    }

    /// MPD 0.24's `Failed to decode "PATH"; CAUSE`: the file's path for local songs, the URL for streams.
    private func failure(_ item: PlaybackItem, _ error: DecoderError) -> String {
        let text = "Failed to decode " + MessageText.quoted(locate(item.song))
        return error.cause.map { text + "; " + $0 } ?? text
    }

    /// Opens a job's song; on failure pushes the end with MPD's error text and returns nil.
    private func open(_ job: DecodeJob) -> SongStream? {
        do throws(DecoderError) {
            return try SongStream(item: job.item, seek: job.seek, decoders: decoders, converters: converters,
                                  outputFormat: settings.outputFormat,
                                  gain: { PCMScaling.replayGainFactor($0, mode: self.effectiveReplayGainMode(),
                                                                      settings: self.settings.replayGain) },
                                  location: locate(job.item.song))
        } catch {
            logger.error("failed to play \(job.item.song.uri): \(error.message)")
            _ = push(.end(error: failure(job.item, error), failed: job.item.id), epoch: job.epoch)
            return nil
        }
    }

    private func songStart(_ song: SongStream, job: DecodeJob) -> SongStart {
        SongStart(id: song.item.id, time: song.time, duration: song.duration, format: song.source,
                  tags: song.item.song.tags, queued: job.queued, borderPause: job.borderPause)
    }

    /// The ReplayGain mode a song is opened with: `auto` is track gain in random mode, album gain otherwise.
    /// Called without the lock (when a song is opened).
    func effectiveReplayGainMode() -> ReplayGainMode {
        let options = lock.withLock { self.options }
        if options.replayGainMode == .auto { return options.random ? .track : .album }
        return options.replayGainMode
    }
}
