// Copy buttons: <button data-copy="element-id"> copies that element's text. Everything else works without script.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    // No clipboard access (an insecure origin): select the text so the user can copy it.
    const range = document.createRange();
    range.selectNodeContents(document.getElementById(button.dataset.copy));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    button.textContent = "Selected: press Ctrl+C";
  }
});
