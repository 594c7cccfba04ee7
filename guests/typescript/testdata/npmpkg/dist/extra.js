export const extra = "loaded by import()";
