import type { Page } from 'playwright-core';

/** Picks a voice in a voice picker the way a person does: type part of its name, click the option. */
export async function chooseVoice(page: Page, label: string, search: string, voiceId: string): Promise<void> {
  const box = page.getByRole('combobox', { name: label });
  await box.click();
  await box.fill(search);
  const listbox = page.getByRole('listbox', { name: label });
  await listbox.locator(`[role="option"][data-voice-id="${voiceId}"]`).click();
}

/** The id of the first option whose name starts with `name`, after typing it into the picker (then closed). */
export async function voiceIdByName(page: Page, label: string, name: string): Promise<string> {
  const box = page.getByRole('combobox', { name: label });
  await box.click();
  await box.fill(name);
  const option = page
    .getByRole('listbox', { name: label })
    .getByRole('option', { name: new RegExp(`^${name}\\b`) })
    .first();
  const id = (await option.getAttribute('data-voice-id')) ?? '';
  await box.press('Escape');
  return id;
}
