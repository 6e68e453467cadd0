/**
 * Reads a QR code from the camera: the browser's BarcodeDetector where it has one, else
 * jsQR, loaded only when needed so it stays out of the main bundle.
 */

interface DetectedBarcode {
  rawValue: string;
}
interface BarcodeDetectorLike {
  detect(source: CanvasImageSource): Promise<DetectedBarcode[]>;
}
interface BarcodeDetectorClass {
  new (options: { formats: string[] }): BarcodeDetectorLike;
  getSupportedFormats(): Promise<string[]>;
}

const SCAN_INTERVAL_MS = 200;

/** A decoder of one video frame: the QR text, or undefined. */
type FrameDecoder = (video: HTMLVideoElement) => Promise<string | undefined>;

async function browserDecoder(): Promise<FrameDecoder | undefined> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  if (Detector === undefined) return undefined;
  const formats: string[] = await Detector.getSupportedFormats().catch(() => []);
  if (!formats.includes('qr_code')) return undefined;
  const detector = new Detector({ formats: ['qr_code'] });
  return async (video) => (await detector.detect(video))[0]?.rawValue;
}

async function jsqrDecoder(): Promise<FrameDecoder> {
  const { default: jsQR } = await import('jsqr');
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (context === null) throw new Error('this browser cannot read camera frames');
  return (video) => {
    const { videoWidth: width, videoHeight: height } = video;
    if (width === 0 || height === 0) return Promise.resolve(undefined);
    canvas.width = width;
    canvas.height = height;
    context.drawImage(video, 0, 0, width, height);
    const image = context.getImageData(0, 0, width, height);
    return Promise.resolve(jsQR(image.data, width, height)?.data);
  };
}

/**
 * Shows the back camera in `video` and resolves with the first QR code's text. Rejects
 * when the camera is refused or missing, or with `signal`'s reason; stops the camera either way.
 */
export async function scanQr(video: HTMLVideoElement, signal: AbortSignal): Promise<string> {
  if (navigator.mediaDevices?.getUserMedia === undefined) {
    throw new Error('No camera here (the camera needs HTTPS). Paste the link instead.');
  }
  const stream = await navigator.mediaDevices.getUserMedia({
    video: { facingMode: 'environment' },
    audio: false,
  });
  try {
    video.srcObject = stream;
    video.setAttribute('playsinline', '');
    await video.play();
    const decode = (await browserDecoder()) ?? (await jsqrDecoder());
    while (!signal.aborted) {
      const text = await decode(video).catch(() => undefined);
      if (text !== undefined && text !== '') return text;
      await new Promise((resolve) => setTimeout(resolve, SCAN_INTERVAL_MS));
    }
    throw signal.reason;
  } finally {
    for (const track of stream.getTracks()) track.stop();
    video.srcObject = null;
  }
}
