import PlayerCore

/// One configured output (`audio_output` block) as the engine and the `outputs` command see it.
public struct OutputDescription: Equatable, Sendable {
    /// `outputid`: the position in the configuration.
    public var id: Int
    public var name: String
    /// `plugin`: `alsa`, `null`, `fifo`, `pipe`, `httpd`.
    public var plugin: String
    /// `format`: what this output receives (wildcards keep the source's).
    public var format: AudioFormatMask
    /// `mixer_type`: whether `setvol` scales this output's samples.
    public var softwareMixer: Bool
    /// `mixer_type "hardware"` on ALSA: a device mixer sets the volume.
    public var hardwareMixer = false
    /// `sync` (null output) / the engine's clock for sinks that take data at any speed.
    public var paced: Bool
    /// `attribute:` lines of `outputs` (`outputset` changes them).
    public var attributes: [(name: String, value: String)]

    public init(id: Int, name: String, plugin: String, format: AudioFormatMask = AudioFormatMask(),
                softwareMixer: Bool = false, paced: Bool = true, attributes: [(name: String, value: String)] = []) {
        self.id = id
        self.name = name
        self.plugin = plugin
        self.format = format
        self.softwareMixer = softwareMixer
        self.paced = paced
        self.attributes = attributes
    }

    public static func == (a: OutputDescription, b: OutputDescription) -> Bool {
        a.id == b.id && a.name == b.name && a.plugin == b.plugin && a.format == b.format
            && a.softwareMixer == b.softwareMixer && a.hardwareMixer == b.hardwareMixer && a.paced == b.paced
            && a.attributes.elementsEqual(b.attributes, by: { $0 == $1 })
    }
}

/// Makes the sink of an output each time it is enabled (a sink is opened and closed many times while enabled;
/// making a fresh one after a failure gives a device that disappeared a clean retry).
public typealias SinkFactory = @Sendable () throws(OutputError) -> any AudioSink
