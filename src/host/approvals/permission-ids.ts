/** Permission items need ids apart from their tool card's (an item_add with the same id replaces). */
export const permissionItemId = (toolUseId: string) => `perm:${toolUseId}`;
export const toolUseIdOfPermissionItem = (itemId: string) => (itemId.startsWith('perm:') ? itemId.slice(5) : itemId);
