/** Saves bytes the core produced (an export) as a file: a Blob behind an <a download>, no navigation. */
export function base64Bytes(data: string): Uint8Array<ArrayBuffer> {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

export function downloadBase64(filename: string, mime: string, data: string): void {
  const url = URL.createObjectURL(new Blob([base64Bytes(data)], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the Blob to the download.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
