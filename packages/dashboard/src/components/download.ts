/**
 * Saves bytes the client fetched (with the session's headers, which a plain link cannot send)
 * as a file: a blob URL clicked as a download, revoked once the browser has it.
 */
export function saveBytes(bytes: Uint8Array, filename: string, contentType = 'application/octet-stream'): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: contentType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
