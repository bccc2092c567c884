import ALSAOutput
import AudioOutputs
import FFmpegDecoder
import NoSignalConfig
import PlayerCore
import PlayerRuntime

/// Turns `audio_output` blocks into outputs of the player: checks each block's settings (errors name the file and
/// line) and returns how to make its sink. With no block, a sound card's `default` ALSA device, or a null output
/// when the machine has no card (so `make run` always plays).
public struct ConfiguredOutput {
    public var description: OutputDescription
    public var enabled: Bool
    public var makeSink: SinkFactory
    /// `mixer_type "hardware"` on an ALSA output: `setvol` turns the card's knob instead of scaling samples.
    var hardwareMixer: (any HardwareMixer)?
    /// A fifo output's pipe, which the application closes (and removes, if it made it) when it stops.
    var fifoPath: String?
    /// Said once when the server starts (an output kept from an MPD configuration that plays nowhere here).
    public var warning: String?

    public static func all(_ config: Configuration) throws(ConfigError) -> [ConfiguredOutput] {
        var blocks = config.audioOutputs
        if blocks.isEmpty {
            let card = ALSAProbe.soundCardCount() > 0
            blocks = [ConfigBlock(name: "audio_output", file: "(default)", line: 0, values: [
                .init(key: "type", value: card ? "alsa" : "null", line: 0),
                .init(key: "name", value: card ? "default detected output" : "null output", line: 0),
            ])]
        }
        var outputs: [ConfiguredOutput] = []
        for (id, block) in blocks.enumerated() {
            outputs.append(try make(block, id: id, config: config))
        }
        var names = Set<String>()
        for (output, block) in zip(outputs, blocks) where !names.insert(output.description.name).inserted {
            throw block.error("an output named \"\(output.description.name)\" exists already", key: "name")
        }
        return outputs
    }

    private static func make(_ block: ConfigBlock, id: Int, config: Configuration) throws(ConfigError)
        -> ConfiguredOutput
    {
        guard let type = block["type"] else { throw block.error("missing \"type\" setting") }
        guard let name = block["name"] else { throw block.error("missing \"name\" setting") }
        var format = AudioFormatMask()
        // Snapcast's tcp source reads what it was told: 48 kHz, 16 bits, stereo unless the block says otherwise.
        if type == "tcp", block["format"] == nil, let fixed = AudioFormatMask("48000:16:2") { format = fixed }
        if let text = block["format"] {
            guard let mask = AudioFormatMask(text) else {
                throw block.error("expected SAMPLERATE:BITS:CHANNELS, got \"\(text)\"", key: "format")
            }
            format = mask
        }
        let enabled = try bool(block, "enabled", default: true)
        let mixer = block["mixer_type"] ?? config.mixerType ?? "software"
        guard ["hardware", "software", "null", "none", "disabled"].contains(mixer) else {
            throw block.error("unrecognized mixer type \"\(mixer)\" (hardware, software, null or none)",
                              key: "mixer_type")
        }
        // Only ALSA has a hardware mixer; elsewhere "hardware" falls back to scaling the samples.
        let software = mixer == "software" || (mixer == "hardware" && type != "alsa")
        var hardwareMixer: (any HardwareMixer)?
        var fifoPath: String?
        var warning: String?
        let paced = try bool(block, "sync", default: true)
        var description = OutputDescription(id: id, name: name, plugin: type, format: format,
                                            softwareMixer: software, paced: paced)
        let makeSink: SinkFactory
        switch type {
        case "null":
            makeSink = { NullSink() }
        case "alsa":
            let settings = ALSASink.Settings(device: block["device"] ?? "default",
                                             bufferTime: try integer(block, "buffer_time") ?? 500_000,
                                             periodTime: try integer(block, "period_time"))
            description.attributes = [("allowed_formats", block["allowed_formats"] ?? ""),
                                      ("dop", try bool(block, "dop", default: false) ? "1" : "0")]
            makeSink = { ALSASink(settings) }
            if mixer == "hardware" {
                description.hardwareMixer = true
                hardwareMixer = ALSAMixer(ALSAMixer.Settings(
                    device: block["mixer_device"] ?? ALSAMixer.Settings.defaultDevice(forPCM: settings.device),
                    control: block["mixer_control"], index: try integer(block, "mixer_index") ?? 0))
            }
        case "fifo":
            guard let path = block["path"] else { throw block.error("missing \"path\" setting") }
            makeSink = { FifoSink(path: path) }
            fifoPath = path
        case "pipe":
            guard let command = block["command"] else { throw block.error("missing \"command\" setting") }
            makeSink = { PipeSink(command: command) }
        case "httpd":
            let settings = HTTPDSink.Settings(
                port: try integer(block, "port") ?? 8000, bindToAddress: block["bind_to_address"],
                maxClients: try integer(block, "max_clients") ?? 0, encoder: try encoder(block),
                name: name, genre: block["genre"] ?? "Set genre in config", website: block["website"] ?? "Set website in config")
            makeSink = { HTTPDSink(settings, encoders: FFmpegEncoderFactory()) }
        case "tcp":
            let port = try integer(block, "port") ?? 4953
            guard (1...65535).contains(port) else { throw block.error("not a valid port: \(port)", key: "port") }
            let settings = TCPSink.Settings(host: block["host"] ?? "127.0.0.1", port: port)
            makeSink = { TCPSink(settings) }
        case "snapcast":
            // MPD's embedded Snapcast server: kept (an MPD configuration loads, clients see the output) but silent.
            makeSink = { NullSink() }
            warning = """
                \(block.file):\(block.line): output "\(name)": MPD's "snapcast" output (a Snapcast server inside MPD) \
                is not available and plays nowhere; run snapserver with a tcp source and use an output of type "tcp" \
                (see "Every room" in the README)
                """
        default:
            throw block.error("no such audio output plugin: \"\(type)\"", key: "type")
        }
        return ConfiguredOutput(description: description, enabled: enabled, makeSink: makeSink,
                                hardwareMixer: hardwareMixer, fifoPath: fifoPath, warning: warning)
    }

    /// `encoder` (MPD's names: `lame`/`shine` for MP3, `vorbis`, `opus`, `flac`, `wave`; default `vorbis`) with
    /// `bitrate` or `quality` (not both, as MPD requires).
    private static func encoder(_ block: ConfigBlock) throws(ConfigError) -> EncoderSettings {
        let names: [String: EncoderSettings.Codec] = ["lame": .mp3, "shine": .mp3, "mp3": .mp3, "vorbis": .vorbis,
                                                      "opus": .opus, "flac": .flac, "wave": .wave]
        let name = block["encoder"] ?? "vorbis"
        guard let codec = names[name] else {
            throw block.error("no such encoder: \"\(name)\" (lame, vorbis, opus, flac or wave)", key: "encoder")
        }
        let bitrate = try integer(block, "bitrate")
        var quality: Double?
        if let text = block["quality"] {
            guard let value = Double(text) else { throw block.error("number expected, got \"\(text)\"", key: "quality") }
            quality = value
        }
        if bitrate != nil && quality != nil {
            throw block.error("quality and bitrate are both defined", key: "quality")
        }
        return EncoderSettings(codec: codec, bitrate: bitrate, quality: quality)
    }

    private static func bool(_ block: ConfigBlock, _ key: String, default value: Bool) throws(ConfigError) -> Bool {
        guard let text = block[key] else { return value }
        guard let parsed = ["yes": true, "true": true, "1": true, "no": false, "false": false, "0": false][text] else {
            throw block.error("\"yes\" or \"no\" expected, got \"\(text)\"", key: key)
        }
        return parsed
    }

    private static func integer(_ block: ConfigBlock, _ key: String) throws(ConfigError) -> Int? {
        guard let text = block[key] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw block.error("non-negative integer expected, got \"\(text)\"", key: key)
        }
        return value
    }
}
