// The Live page's microphone capture (an AudioWorklet: it runs on the audio thread, unlike the deprecated
// ScriptProcessorNode). It gathers the 128-sample render quanta into frames of `frameSize` samples and posts each
// frame (a Float32Array, transferred) to the page, which converts it to PCM16 and sends it to /v1/realtime.
// Served as a plain file from web/public (the page's script-src is 'self'); no build step touches it.
class PcmCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.frameSize = options.processorOptions.frameSize;
    this.frame = new Float32Array(this.frameSize);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) {
      let offset = 0;
      while (offset < channel.length) {
        const taken = Math.min(channel.length - offset, this.frameSize - this.filled);
        this.frame.set(channel.subarray(offset, offset + taken), this.filled);
        this.filled += taken;
        offset += taken;
        if (this.filled === this.frameSize) {
          this.port.postMessage(this.frame, [this.frame.buffer]);
          this.frame = new Float32Array(this.frameSize);
          this.filled = 0;
        }
      }
    }
    return true;
  }
}

registerProcessor('pcm-capture', PcmCapture);
