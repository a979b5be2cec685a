// Images from the panel's composer. The webview downscaled and typed them, but
// it is not trusted: the bytes are sniffed and measured again here, so a
// mislabelled or damaged file never reaches the model or the session file.
import { ImageError, imageFromBytes, MAX_IMAGES_PER_MESSAGE } from '../../runtime/context/images';
import { type ImageBlock } from '../../runtime/types';
import { type ImageData } from '../../webview/protocol';

export function checkPanelImages(images: readonly ImageData[]): { images: ImageBlock[] } | { error: string } {
  if (images.length > MAX_IMAGES_PER_MESSAGE) return { error: `At most ${MAX_IMAGES_PER_MESSAGE} images can be sent in one message.` };
  const out: ImageBlock[] = [];
  for (const [i, image] of images.entries()) {
    try {
      out.push(imageFromBytes(Buffer.from(image.data, 'base64'), `Image ${i + 1}`, image.mediaType));
    } catch (error) {
      if (error instanceof ImageError) return { error: `${error.message}.` };
      throw error;
    }
  }
  return { images: out };
}
